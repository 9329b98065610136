import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * How long each file took in a whole run, `<project>:<path>` to ms (`npm run test:durations` writes
 * it from vitest's own cache): a fresh clone has no cache, and vitest then orders by file size,
 * which started the longest files (the event log's, the fuzz's) halfway through the run.
 */
const committedDurations: Record<string, number> = JSON.parse(
  readFileSync(new URL("./file-durations.json", import.meta.url), "utf8"),
);

/**
 * vitest runs the projects of one group project by project (by name), so the out-of-process files
 * (each starts a server or a browser, and mostly waits) would hold every worker at the start and
 * the workerd files (which keep both cores busy) would all come after them. Here each project's
 * files are spread evenly over the run instead, longest first within the project (vitest's own
 * timing of the last run, else the committed one; a file that failed last, or that neither knows,
 * goes first, as in vitest).
 * A project's file i of n goes at i / n of the order: the three e2e files at 0, 1/3 and 2/3.
 */
export class SpreadProjects extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durationOf = (file: TestSpecification) => {
      const key = `${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`;
      const cached = this.ctx.cache.getFileTestResults(key);
      if (cached?.failed) return Number.POSITIVE_INFINITY;
      return cached?.duration ?? committedDurations[key] ?? Number.POSITIVE_INFINITY;
    };
    const byProject = new Map<string, TestSpecification[]>();
    const ordered = (await super.sort(files))
      .map((file, i) => ({ file, i, duration: durationOf(file) }))
      .sort((a, b) => b.duration - a.duration || a.i - b.i)
      .map(({ file }) => file);
    for (const file of ordered) byProject.set(file.project.name, [...(byProject.get(file.project.name) ?? []), file]);
    const placed = [...byProject.values()].flatMap((project) =>
      project.map((file, i) => ({ file, at: i / project.length })),
    );
    return placed.sort((a, b) => a.at - b.at).map(({ file }) => file);
  }
}
