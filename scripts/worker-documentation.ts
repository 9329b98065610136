import ts from "typescript";

/**
 * What only /openapi.json reads, found in a source file of the Worker so the build can leave it out
 * of the upload (scripts/build-worker.ts; the document itself is built from the untouched sources).
 */

const isDocumentation = (call: ts.CallExpression) => {
  if (!ts.isPropertyAccessExpression(call.expression) || call.expression.name.text !== "openapi") return false;
  const args = call.arguments;
  const text = (node: ts.Node | undefined) => !!node && ts.isStringLiteralLike(node);
  const object = (node: ts.Node | undefined) => !!node && ts.isObjectLiteralExpression(node);
  // A schema's `.openapi(metadata)` or `.openapi("Name", metadata?)`; a router's `.openapi(route, handler)` stays.
  return (
    (args.length === 1 && (object(args[0]) || text(args[0]))) || (args.length === 2 && text(args[0]) && object(args[1]))
  );
};

const ROUTE_BUILDERS = new Set(["apiRoute", "createRoute"]);
const DOCUMENTING = new Set(["summary", "description"]);
/** What a route config says for the document alone: @hono/zod-openapi routes by method, path, request and middleware. */
const DOCUMENT_ONLY = new Set([...DOCUMENTING, "operationId", "tags", "security", "errors", "errorShape"]);

/** A value written without a call, `new` or property read (literals, names, and arrays, objects and `+` of them): leaving it out runs nothing less. */
const isInert = (node: ts.Node): boolean => {
  if (
    ts.isStringLiteralLike(node) ||
    ts.isNumericLiteral(node) ||
    ts.isIdentifier(node) ||
    node.kind === ts.SyntaxKind.TrueKeyword ||
    node.kind === ts.SyntaxKind.FalseKeyword ||
    node.kind === ts.SyntaxKind.NullKeyword
  )
    return true;
  if (
    ts.isParenthesizedExpression(node) ||
    ts.isAsExpression(node) ||
    ts.isSatisfiesExpression(node) ||
    ts.isSpreadElement(node) ||
    ts.isSpreadAssignment(node)
  )
    return isInert(node.expression);
  if (ts.isArrayLiteralExpression(node)) return node.elements.every(isInert);
  if (ts.isObjectLiteralExpression(node))
    return node.properties.every(
      (p) =>
        ts.isShorthandPropertyAssignment(p) ||
        ts.isSpreadAssignment(p) ||
        (ts.isPropertyAssignment(p) && !ts.isComputedPropertyName(p.name) && isInert(p.initializer)),
    );
  if (ts.isTemplateExpression(node)) return node.templateSpans.every((span) => isInert(span.expression));
  return ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken
    ? isInert(node.left) && isInert(node.right)
    : false;
};

/** A string the source writes out: a literal, a template without substitutions or a `+` of them. */
const isWrittenText = (node: ts.Expression): boolean =>
  ts.isStringLiteralLike(node) ||
  (ts.isParenthesizedExpression(node) && isWrittenText(node.expression)) ||
  (ts.isBinaryExpression(node) &&
    node.operatorToken.kind === ts.SyntaxKind.PlusToken &&
    isWrittenText(node.left) &&
    isWrittenText(node.right));

/** The object literal an expression writes, through parentheses and `as`/`satisfies` (apiRoute's `{...} as RouteConfig`). */
const writtenObject = (node: ts.Expression): ts.ObjectLiteralExpression | undefined => {
  while (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node))
    node = node.expression;
  return ts.isObjectLiteralExpression(node) ? node : undefined;
};

/**
 * The source without what only the document reads, blanked in place (spaces, newlines kept) so
 * lines and columns of everything else are unchanged (but the pure marks' columns, below):
 * - each schema's `.openapi(...)` call (a call inside it goes with it);
 * - of a route's config (`apiRoute`/`createRoute`), the members only the document reads
 *   (`operationId`, `summary`, `description`, `tags`, `security`, `errors`, `errorShape`) when
 *   written without calls, whole; nested, a written `summary` or `description` becomes `""`; and
 *   its `responses` become `{}` whatever builds them (no validator reads them: apiRoute's
 *   documentedResponses goes too);
 * - a declaration at the top of the file, not exported, that only what is cut reads (and so on);
 * - and a schema declared at the top of a file (`const x = z...`, `envelopeSchema(...)`, a schema
 *   declared above it extended, or an object written of such) is marked pure (`@__PURE__`, the one
 *   insertion), so the bundler drops it when nothing reads it: the schemas only `responses` named.
 */
export const withoutDocumentation = (source: string, fileName = "source.ts") => {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const cuts: [number, number, string][] = [];
  const routeConfig = (config: ts.ObjectLiteralExpression, top: boolean) => {
    config.properties.forEach((property, at) => {
      const name = property.name && ts.isIdentifier(property.name) ? property.name.text : undefined;
      const written = ts.isPropertyAssignment(property)
        ? property.initializer
        : ts.isShorthandPropertyAssignment(property)
          ? property.name
          : undefined;
      // Of the config itself, a member only the document reads goes whole, up to the next member (its comma with it).
      if (top && name && DOCUMENT_ONLY.has(name) && written && isInert(written)) {
        const next = config.properties[at + 1];
        cuts.push([property.getStart(), next ? next.getStart() : config.getEnd() - 1, ""]);
        return;
      }
      if (!ts.isPropertyAssignment(property)) return;
      const value = property.initializer;
      // A route's own responses, whatever builds them (apiRoute's documentedResponses); nested, a written object.
      if (
        ts.isIdentifier(property.name) &&
        property.name.text === "responses" &&
        (top || ts.isObjectLiteralExpression(value))
      )
        cuts.push([value.getStart(), value.getEnd(), "{}"]);
      else if (ts.isObjectLiteralExpression(value)) routeConfig(value, false);
      else if (ts.isIdentifier(property.name) && DOCUMENTING.has(property.name.text) && isWrittenText(value))
        cuts.push([value.getStart(), value.getEnd(), '""']);
    });
  };
  const visit = (node: ts.Node) => {
    // Inside what is already cut (a route's responses): nothing more to cut.
    if (cuts.some(([start, end]) => start <= node.getStart() && node.getEnd() <= end)) return;
    if (ts.isCallExpression(node) && isDocumentation(node)) {
      // From the dot before `openapi` to the closing parenthesis; the receiver is still visited.
      const access = node.expression as ts.PropertyAccessExpression;
      cuts.push([access.expression.getEnd(), node.getEnd(), ""]);
      visit(access.expression);
      return;
    }
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && ROUTE_BUILDERS.has(node.expression.text)) {
      const config = node.arguments[0] && writtenObject(node.arguments[0]);
      if (config) routeConfig(config, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  // A declaration at the top of the file that only what is cut reads goes too (a route's answer
  // written apart, `const answer = { description, ...json(schema) }`, which the bundler keeps for
  // its spread), and so on for what only it read. Not an exported one: another file may read it.
  const named = new Map<string, ts.Identifier[]>();
  const collect = (node: ts.Node) => {
    if (ts.isIdentifier(node)) named.set(node.text, [...(named.get(node.text) ?? []), node]);
    ts.forEachChild(node, collect);
  };
  collect(file);
  const isCut = (node: ts.Node) => cuts.some(([start, end]) => start <= node.getStart() && node.getEnd() <= end);
  for (let more = true; more; ) {
    more = false;
    for (const statement of file.statements) {
      if (!ts.isVariableStatement(statement) || isCut(statement)) continue;
      if (statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue;
      const [declaration, ...others] = statement.declarationList.declarations;
      if (!declaration || others.length || !ts.isIdentifier(declaration.name)) continue;
      const reads = named.get(declaration.name.text)!.filter((node) => node !== declaration.name);
      if (reads.length && reads.every(isCut)) {
        cuts.push([statement.getStart(), statement.getEnd(), ""]);
        more = true;
      }
    }
  }
  // Every call of the declaration (zod builds schemas without side effects), not inside a function.
  const pure: number[] = [];
  // What a schema is built from: zod, envelopeSchema (a zod object around one) and each schema declared above.
  const schemaRoots = new Set(["z", "envelopeSchema"]);
  const rootOf = (e: ts.Expression): ts.Expression => {
    while (ts.isCallExpression(e) || ts.isPropertyAccessExpression(e)) e = e.expression;
    return e;
  };
  // A schema built from those, or an object of them written out (envelope.ts's sentHeaders).
  const isSchema = (e: ts.Expression): boolean => {
    if (ts.isObjectLiteralExpression(e))
      return e.properties.every((p) => ts.isPropertyAssignment(p) && isSchema(p.initializer));
    const root = ts.isCallExpression(e) ? rootOf(e) : undefined;
    return !!root && ts.isIdentifier(root) && schemaRoots.has(root.text);
  };
  const markCalls = (node: ts.Node) => {
    if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) return;
    if (ts.isCallExpression(node)) pure.push(node.getStart());
    ts.forEachChild(node, markCalls);
  };
  for (const statement of file.statements)
    if (ts.isVariableStatement(statement))
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        if (!init || !isSchema(init)) continue;
        markCalls(init);
        if (ts.isIdentifier(declaration.name)) schemaRoots.add(declaration.name.text);
      }
  if (!cuts.length && !pure.length) return source;
  const out = source.split("");
  const newline = (at: number) => out[at] === "\n" || out[at] === "\r";
  for (const [start, end, kept] of cuts) {
    // What is kept goes where a line of the cut has room for it; the rest becomes spaces.
    let at = -1;
    for (let i = start, run = 0; i < end && at < 0; i++) {
      run = newline(i) ? 0 : run + 1;
      if (kept && run === kept.length) at = i - run + 1;
    }
    if (kept && at < 0) continue;
    for (let i = start; i < end; i++) if (!newline(i)) out[i] = i >= at && i < at + kept.length ? kept[i - at]! : " ";
  }
  const blanked = (at: number) => cuts.some(([start, end]) => start <= at && at < end);
  for (const at of new Set(pure)) if (!blanked(at)) out[at] = `/* @__PURE__ */ ${out[at]}`;
  return out.join("");
};
