// Lists the functions longer than a limit (70 lines by default, TigerBeetle's rule that issue 34
// adopts), longest first: `node scripts/long-functions.mjs [limit] [folder…]` (app/server and
// app/domain when no folder is named). A function's length is from its first line to its last,
// comments and blank lines included, as a reader meets it; a function inside another counts apart.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const args = process.argv.slice(2);
const limit = /^\d+$/.test(args[0] ?? "") ? Number(args.shift()) : 70;
const folders = args.length > 0 ? args : ["app/server", "app/domain"];

function* sources(folder) {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) yield* sources(full);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) yield full;
  }
}

function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "(anonymous)";
}

const long = [];
for (const folder of folders)
  for (const file of sources(folder)) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
        if (last - first + 1 > limit) long.push({ file, line: first, name: nameOf(node), lines: last - first + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
long.sort((a, b) => b.lines - a.lines);
for (const f of long) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
console.log(`${long.length} functions over ${limit} lines in ${folders.join(", ")}`);
