import { SingleBar } from "cli-progress";

export type Progress = { update: (done: number) => void; stop: () => void };

/**
 * A progress bar with count, rate and ETA for long local work (the large seed). On a terminal it is
 * one line redrawn in place; when stdout is not a terminal (CI, a pipe) it prints a plain line every
 * few seconds instead, so logs stay readable.
 */
export const progressBar = (label: string, total: number): Progress => {
  const started = Date.now();
  const bar = new SingleBar({
    format: `${label} [{bar}] {percentage}% | {value}/{total} | {rate}/s | ETA {eta_formatted}`,
    barCompleteChar: "=",
    barIncompleteChar: " ",
    hideCursor: true,
    noTTYOutput: !process.stdout.isTTY,
    notTTYSchedule: 5_000,
    etaBuffer: 20,
  });
  const rate = (done: number) =>
    Math.round(done / Math.max((Date.now() - started) / 1000, 0.001)).toLocaleString("en-US");
  bar.start(total, 0, { rate: "0" });
  return {
    update: (done) => bar.update(done, { rate: rate(done) }),
    stop: () => bar.stop(),
  };
};
