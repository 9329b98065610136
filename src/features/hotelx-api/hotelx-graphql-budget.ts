import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  GraphQLError,
  type GraphQLField,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  getOperationAST,
  getVariableValues,
  isCompositeType,
  Kind,
  type SelectionSetNode,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
} from "graphql";

/**
 * What one POST /api/graphql document may ask for (docs/api-decisions.md "GraphQL within a
 * budget"). Every limit is checked before anything runs; a document past one is refused whole,
 * as GraphQL refuses a document that does not validate.
 */
export const GRAPHQL_LIMITS = {
  /** `{ [ (` open at once in the source, counted before graphql-js parses (its parser recurses). */
  nesting: 32,
  /** Tokens graphql-js reads before it gives up (its `maxTokens`): a document is a few hundred. */
  tokens: 5_000,
  /** Selection sets inside each other, fragments expanded (the standard introspection query has 13). */
  depth: 16,
  /** Fields selected, every alias and fragment spread counted. */
  fields: 500,
  /** Fields given an alias: a Hotel-X document needs none; each one repeats a field's work. */
  aliases: 20,
  /** `__schema` and `__type` fields: each answers tens of kilobytes. */
  introspection: 2,
  /** `hotelX { search quote booking }` fields: each is supplier calls (search, quote) or D1 reads (booking). */
  queries: 5,
  /** `mutation { hotelX { book cancel commit } }` fields: one write per document, under its one Idempotency-Key. */
  mutations: 1,
  /** `booking(criteria: { references: { references } })` entries: one D1 read each. */
  references: 50,
} as const;

/** Selections the complexity walk may visit, fragment spreads repeated: a bound on its own work. */
const MAX_WALKED_NODES = 5_000;

export const refused = (message: string, limit: keyof typeof GRAPHQL_LIMITS) =>
  new GraphQLError(message, { extensions: { code: "document_too_costly", limit: GRAPHQL_LIMITS[limit] } });

/**
 * How deep `{ [ (` nest in a GraphQL source, strings and comments skipped: a cheap scan before
 * graphql-js parses, whose recursion a 10 KB list literal nested 5,000 deep overflows (a 500).
 * Stops at `max + 1`.
 */
export const sourceNesting = (source: string, max: number = GRAPHQL_LIMITS.nesting): number => {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === "#") {
      while (i < source.length && source[i] !== "\n" && source[i] !== "\r") i++;
    } else if (char === '"') {
      const block = source.startsWith('"""', i);
      const end = block ? '"""' : '"';
      i += end.length;
      while (i < source.length && !source.startsWith(end, i)) {
        // A block string's only escape is \"""; a plain string escapes any character.
        if (source[i] === "\\") i += block && source.startsWith('\\"""', i) ? 3 : 1;
        else if (!block && (source[i] === "\n" || source[i] === "\r")) break;
        i++;
      }
      i += end.length - 1;
    } else if (char === "{" || char === "[" || char === "(") {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > max) return deepest;
      }
    } else if (char === "}" || char === "]" || char === ")") {
      depth = Math.max(0, depth - 1);
    }
  }
  return deepest;
};

/** Refuses a source nested past the limit before it is parsed; null when it may be parsed. */
export const sourceRefusal = (source: string): GraphQLError | null =>
  sourceNesting(source) > GRAPHQL_LIMITS.nesting
    ? refused(`The document nests brackets more than ${GRAPHQL_LIMITS.nesting} deep`, "nesting")
    : null;

/** The deepest selection set under `set`, fragments expanded (each measured once; validation refused cycles). */
const depthOf = (
  set: SelectionSetNode | undefined,
  fragments: Map<string, FragmentDefinitionNode>,
  known: Map<string, number>,
): number => {
  if (!set) return 0;
  let deepest = 0;
  for (const selection of set.selections) {
    let depth = 0;
    if (selection.kind === Kind.FIELD) depth = 1 + depthOf(selection.selectionSet, fragments, known);
    else if (selection.kind === Kind.INLINE_FRAGMENT) depth = depthOf(selection.selectionSet, fragments, known);
    else {
      const name = selection.name.value;
      if (!known.has(name)) {
        known.set(name, 0);
        known.set(name, depthOf(fragments.get(name)?.selectionSet, fragments, known));
      }
      depth = known.get(name)!;
    }
    deepest = Math.max(deepest, depth);
  }
  return deepest;
};

/** The count of each thing a limit bounds, for one validated document and its variables. */
type Measure = { fields: number; aliases: number; introspection: number; queries: number; mutations: number };

const QUERY_FIELDS = new Set(["HotelXQuery.search", "HotelXQuery.quote", "HotelXQuery.booking"]);
const MUTATION_FIELDS = new Set(["HotelXMutation.book", "HotelXMutation.cancel", "HotelXMutation.commit"]);

/** The `references` a booking field's (coerced) arguments list. */
const referencesOf = (args: Record<string, unknown>): number => {
  const criteria = args.criteria as { references?: { references?: unknown[] } } | undefined;
  return criteria?.references?.references?.length ?? 0;
};

/** The definition of a selected field, introspection's own included (validation found every one). */
const fieldOf = (schema: GraphQLSchema, parent: GraphQLCompositeType, node: FieldNode) => {
  const name = node.name.value;
  if (name === "__typename") return TypeNameMetaFieldDef;
  if (parent === schema.getQueryType() && name === "__schema") return SchemaMetaFieldDef;
  if (parent === schema.getQueryType() && name === "__type") return TypeMetaFieldDef;
  return "getFields" in parent ? (parent.getFields()[name] as GraphQLField<unknown, unknown> | undefined) : undefined;
};

/**
 * Counts what the operation selects, as graphql-js would run it before merging: every alias and
 * every fragment spread counted where it is spread (so each spread's work is paid), `@skip` and
 * `@include` ignored (counted as if selected). The walk stops past MAX_WALKED_NODES.
 */
const measured = (
  schema: GraphQLSchema,
  fragments: Map<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
) => {
  const measure: Measure = { fields: 0, aliases: 0, introspection: 0, queries: 0, mutations: 0 };
  let references = 0;
  let walked = 0;
  const walk = (set: SelectionSetNode, parent: GraphQLCompositeType): boolean => {
    for (const selection of set.selections) {
      if (++walked > MAX_WALKED_NODES) return false;
      if (selection.kind === Kind.FIELD) {
        const field = fieldOf(schema, parent, selection);
        if (!field) continue;
        measure.fields++;
        if (selection.alias) measure.aliases++;
        if (field === SchemaMetaFieldDef || field === TypeMetaFieldDef) measure.introspection++;
        const name = `${parent.name}.${field.name}`;
        if (QUERY_FIELDS.has(name)) measure.queries++;
        if (MUTATION_FIELDS.has(name)) measure.mutations++;
        if (name === "HotelXQuery.booking") {
          try {
            references = Math.max(references, referencesOf(getArgumentValues(field, selection, variables)));
          } catch {
            // Arguments that do not coerce are refused by execute, by name.
          }
        }
        const type = getNamedType(field.type);
        if (selection.selectionSet && isCompositeType(type) && !walk(selection.selectionSet, type)) return false;
      } else {
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value);
        if (!fragment) continue;
        const condition = fragment.typeCondition ? schema.getType(fragment.typeCondition.name.value) : parent;
        if (!walk(fragment.selectionSet, isCompositeType(condition) ? condition : parent)) return false;
      }
    }
    return true;
  };
  return { measure, references: () => references, walk };
};

/**
 * Measures a validated document against GRAPHQL_LIMITS: the refusals, none when it may run.
 * Written here rather than with graphql-query-complexity: the walk is short over graphql-js's own
 * helpers, and the package (with lodash.get) took the Worker past its 260 KiB gzipped cap.
 */
export const documentRefusals = (
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
): GraphQLError[] => {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const operation = getOperationAST(document, operationName);
  // No operation to run (several, none named): execute answers that, nothing runs.
  if (!operation) return [];
  const depth = depthOf(operation.selectionSet, fragments, new Map());
  if (depth > GRAPHQL_LIMITS.depth)
    return [refused(`The document's selections nest ${depth} deep, more than ${GRAPHQL_LIMITS.depth}`, "depth")];
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  // Variables that do not coerce are left to graphql-js's execute, which names them (nothing runs).
  if (coerced.errors) return [];
  const root = operation.operation === "mutation" ? schema.getMutationType() : schema.getQueryType();
  if (!root) return [];
  const { measure, references, walk } = measured(schema, fragments, coerced.coerced);
  if (!walk(operation.selectionSet, root))
    return [refused(`The document has more than ${GRAPHQL_LIMITS.fields} selected fields`, "fields")];

  const names: Record<keyof Measure, string> = {
    fields: "selected fields",
    aliases: "aliased fields",
    introspection: "introspection fields",
    queries: "hotelX search, quote and booking fields",
    mutations: "hotelX book, cancel and commit fields",
  };
  const errors = (Object.keys(names) as Array<keyof Measure>)
    .filter((limit) => measure[limit] > GRAPHQL_LIMITS[limit])
    .map((limit) =>
      refused(`The document has ${measure[limit]} ${names[limit]}, more than ${GRAPHQL_LIMITS[limit]}`, limit),
    );
  if (references() > GRAPHQL_LIMITS.references)
    errors.push(
      refused(
        `The document has ${references()} criteria.references.references, more than ${GRAPHQL_LIMITS.references}`,
        "references",
      ),
    );
  return errors;
};
