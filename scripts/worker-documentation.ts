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

/** A string the source writes out: a literal, a template without substitutions or a `+` of them. */
const isWrittenText = (node: ts.Expression): boolean =>
  ts.isStringLiteralLike(node) ||
  (ts.isParenthesizedExpression(node) && isWrittenText(node.expression)) ||
  (ts.isBinaryExpression(node) &&
    node.operatorToken.kind === ts.SyntaxKind.PlusToken &&
    isWrittenText(node.left) &&
    isWrittenText(node.right));

/**
 * The source without what only the document reads, blanked in place (spaces, newlines kept) so
 * lines and columns of everything else are unchanged:
 * - each schema's `.openapi(...)` call (a call inside it goes with it);
 * - the written `summary` and `description` of a route's config (`apiRoute`/`createRoute`, and its
 *   responses'), which become `""`.
 */
export const withoutDocumentation = (source: string, fileName = "source.ts") => {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const cuts: [number, number, string][] = [];
  const routeConfig = (config: ts.ObjectLiteralExpression) => {
    for (const property of config.properties) {
      if (!ts.isPropertyAssignment(property)) continue;
      const value = property.initializer;
      if (ts.isObjectLiteralExpression(value)) routeConfig(value);
      else if (ts.isIdentifier(property.name) && DOCUMENTING.has(property.name.text) && isWrittenText(value))
        cuts.push([value.getStart(), value.getEnd(), '""']);
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && isDocumentation(node)) {
      // From the dot before `openapi` to the closing parenthesis; the receiver is still visited.
      const access = node.expression as ts.PropertyAccessExpression;
      cuts.push([access.expression.getEnd(), node.getEnd(), ""]);
      visit(access.expression);
      return;
    }
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      ROUTE_BUILDERS.has(node.expression.text) &&
      node.arguments[0] &&
      ts.isObjectLiteralExpression(node.arguments[0])
    )
      routeConfig(node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (!cuts.length) return source;
  const out = source.split("");
  for (const [start, end, kept] of cuts)
    for (let i = start; i < end; i++)
      if (i - start < kept.length) out[i] = kept[i - start]!;
      else if (out[i] !== "\n" && out[i] !== "\r") out[i] = " ";
  return out.join("");
};
