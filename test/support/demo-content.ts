import { inject } from "vitest";
import type { DemoAccommodation } from "./accommodations";
import { insertDemoAccommodations } from "./seed";

/**
 * The demo accommodations `npm start` seeds, for the workerd tests: the same generator's rows,
 * made once per run in Node (demo-content-server.ts), so faker and the city data stay out of workerd.
 */
export const demoAccommodations = async (count: number): Promise<DemoAccommodation[]> => {
  const res = await fetch(`${inject("demoContent")}/accommodations?count=${count}`);
  if (res.status !== 200) throw new Error(`demo content: ${res.status}`);
  return (await res.json()) as DemoAccommodation[];
};

/** Inserts the first `accommodations` demo accommodations; rows already present are kept. */
export const seedDemoAccommodations = async (d1: D1Database, options: { accommodations: number }) =>
  insertDemoAccommodations(d1, await demoAccommodations(options.accommodations));
