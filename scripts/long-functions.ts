// npm run lint, through lint-lines.ts: no function in build/, gateway/ or scripts/ longer than a screen
// shows. The 300-line rule caps files, not functions; a reader holds one function in mind at a time, so a
// long one is split by meaning (small named functions, data as data). Every kind counts: declarations,
// expressions, arrows, methods, accessors and constructors, each from its first line to its last.
import ts from 'typescript';

export const MAX_FUNCTION_LINES = 100;
/** The folders held to the cap: the code a reader of the service opens. */
export const FUNCTION_DIRS = ['build/', 'gateway/', 'scripts/'];

/** The functions over MAX_FUNCTION_LINES lines in one file's text, as `file:line name (N lines)`. */
export function longFunctionsIn(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body && !isScriptScope(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES) found.push(`${file}:${first + 1} ${nameOf(node)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * A browser script's `(function () { … })();` around the whole file: the way a classic script has a
 * scope of its own (build/pages/assets/page.js), the file itself rather than a function in it.
 */
function isScriptScope(node: ts.Node): boolean {
  let at = node.parent;
  while (ts.isParenthesizedExpression(at)) at = at.parent;
  return ts.isCallExpression(at) && ts.isExpressionStatement(at.parent) && ts.isSourceFile(at.parent.parent);
}

/** A function's own name, else the name it is bound to (a variable, a property), else its kind. */
function nameOf(node: ts.SignatureDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText();
  return ts.SyntaxKind[node.kind];
}
