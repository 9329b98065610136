import type { z } from "@hono/zod-openapi";

/**
 * One type of event, as the feature that emits it declares it: the schema of its `data`, an example
 * of that `data` for the document, and what it means. The event log checks every emitted `data`
 * against `payload`, and the document's `webhooks` shows it.
 */
export type EventDeclaration<Payload extends z.ZodType = z.ZodType> = {
  payload: Payload;
  example: z.input<Payload> & Record<string, unknown>;
  description: string;
  /** Set on an event about no booking: its bookingReference is null, and the document says it may be. */
  withoutBooking?: true;
};

/**
 * Every type of event the log records, by name (`app.ts` hands the emitting features' catalogues to
 * webhooks). Subscriptions, the log's `types` filter and the document's `webhooks` take their names
 * from it, in its order; webhooks stores a type as text, so a new event is a new entry, nothing in
 * webhooks.
 */
export type EventCatalogue = Readonly<Record<string, EventDeclaration>>;

/** The catalogue's event names, in its order (z.enum wants at least one). */
export const eventTypesOf = (catalogue: EventCatalogue): [string, ...string[]] => {
  const [first, ...rest] = Object.keys(catalogue);
  if (first === undefined) throw new Error("An event catalogue declares at least one event");
  return [first, ...rest];
};

/** The `data` of an event of `type`, as its catalogue declares it. */
export type EventData<C extends EventCatalogue, T extends keyof C> = z.input<C[T]["payload"]> & Record<string, unknown>;

/**
 * Throws unless `data` is what the catalogue declares for `type`: a payload off its documented
 * schema is a bug of the emitting code, refused before the change it records is written, never
 * delivered to partners. `data` itself is logged as given (the parse's output may order keys otherwise).
 */
export const checkEventData = (catalogue: EventCatalogue, type: string, data: unknown): void => {
  const declared = catalogue[type];
  if (!declared) throw new Error(`Event type ${type} is not in the event catalogue`);
  const checked = declared.payload.safeParse(data);
  if (!checked.success) {
    const issues = checked.error.issues.map((issue) => `${issue.path.join(".") || "data"}: ${issue.message}`);
    throw new Error(`Event ${type}: data does not match its declared schema (${issues.join("; ")})`);
  }
};
