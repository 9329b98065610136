import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * vitest runs the projects of one group project by project (by name), so the out-of-process files
 * (each starts a server or a browser, and mostly waits) would hold every worker at the start and
 * the workerd files (which keep both cores busy) would all come after them. Here each project's
 * files are spread evenly over the run instead, in vitest's own order within the project (longest
 * first when a previous run timed them, else largest first). A project's file i of n goes at i / n
 * of the order: the four e2e files at 0, 1/4, 1/2 and 3/4, none left to start last.
 */
export class SpreadProjects extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const byProject = new Map<string, TestSpecification[]>();
    for (const file of await super.sort(files))
      byProject.set(file.project.name, [...(byProject.get(file.project.name) ?? []), file]);
    const placed = [...byProject.values()].flatMap((project) =>
      project.map((file, i) => ({ file, at: i / project.length })),
    );
    return placed.sort((a, b) => a.at - b.at).map(({ file }) => file);
  }
}
