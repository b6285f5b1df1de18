import fs from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";
import SERVER_FLOORS from "../../app/server/floors.json";

/**
 * app/server's floors (docs/architecture.md#dependency-directions): ESLint keeps each floor from
 * importing the floors above it (eslint.config.js, on the floors of app/server/floors.json), and this walks every import of
 * app/server to prove there is no loop between folders at all, inside a floor included. Both
 * fail on the layout before issue 34, whose 19-folder loop ran through db -> backup -> db and
 * security -> cards -> ... -> files -> security.
 */
const root = path.resolve(import.meta.dirname, "../..");
const server = path.join(root, "app/server");
const fixtures = path.join(root, "tests/fixtures/server-floors");

/** The folder (or top-level file) of app/server a path is in. */
function folderOf(file: string): string {
  return path.relative(server, file).split(path.sep)[0]!;
}

/** Every module of app/server, migrations aside. */
function serverModules(directory = server): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === "migrations" ? [] : serverModules(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

const IMPORT = /(?:import|export)\s+(?:type\s+)?[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** Folder -> the other folders of app/server it imports, with one example import each. */
function folderImports(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of serverModules()) {
    const from = folderOf(file);
    for (const match of fs.readFileSync(file, "utf8").matchAll(IMPORT)) {
      const specifier = (match[1] ?? match[2])!;
      const target = specifier.startsWith("~/server/")
        ? path.join(server, specifier.slice("~/server/".length))
        : specifier.startsWith(".")
          ? path.resolve(path.dirname(file), specifier)
          : null;
      if (!target || !target.startsWith(server + path.sep)) continue;
      const to = folderOf(target.endsWith(".server") ? `${target}.ts` : target);
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      graph.get(from)!.set(to, `${path.relative(root, file)} imports ${specifier}`);
    }
  }
  return graph;
}

/** The loops of a directed graph (Tarjan's strongly connected components of more than one node). */
function loops(graph: Map<string, Map<string, string>>, nodes: string[]): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    for (const to of graph.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return found;
}

describe("app/server's floors", () => {
  const folders = fs.readdirSync(server).filter((name) => name !== "floors.json");
  const onFloors = SERVER_FLOORS.flatMap((floor) => floor.folders);

  it("every folder of app/server is on exactly one floor", () => {
    expect([...onFloors].sort()).toEqual([...folders].sort());
    expect(new Set(onFloors).size).toBe(onFloors.length);
  });

  it("no folder imports a folder that imports it back, however far round", () => {
    const graph = folderImports();
    const found = loops(graph, folders);
    // On failure, the loop and the imports that close it.
    const explained = found.map((loop) =>
      loop.flatMap((from) => loop.filter((to) => graph.get(from)?.has(to)).map((to) => graph.get(from)!.get(to)!)),
    );
    expect(explained).toEqual([]);
  });

  it("the architecture map names every folder of app/server", () => {
    const architecture = fs.readFileSync(path.join(root, "docs/architecture.md"), "utf8");
    const map = architecture.slice(
      architecture.indexOf("### Folders"),
      architecture.indexOf("### Dependency directions"),
    );
    const missing = folders.filter(
      (folder) => !new RegExp(`(^|\\s)${folder.replace(".", "\\.")}/?(\\s|$)`, "m").test(map),
    );
    expect(missing).toEqual([]);
  });

  it("the integration tests mirror app/server's folders (whole-app: the tests that start the built server)", () => {
    const tests = path.join(root, "tests/integration");
    const misplaced = fs
      .readdirSync(tests, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".test.ts"))
      .filter((file) => {
        const parts = file.split(path.sep);
        return parts.length !== 2 || !(folders.includes(parts[0]!) || parts[0] === "whole-app");
      });
    expect(misplaced).toEqual([]);
  });
});

describe("ESLint keeps each floor of app/server from the floors above it", () => {
  let eslint: ESLint;
  beforeAll(async () => {
    eslint = new ESLint({ cwd: root });
    await eslint.lintText("export {};\n", { filePath: path.join(server, "ledger/warm-up.server.ts") });
  }, 60_000);

  async function refusedLines(fixture: string, as: string): Promise<number[]> {
    const text = fs.readFileSync(path.join(fixtures, fixture), "utf8");
    const [result] = await eslint.lintText(text, { filePath: path.join(root, as) });
    return result!.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.line);
  }

  it("refuses the old layout's data-key rotation in security/ (plumbing importing the database, cards, members)", async () => {
    expect(await refusedLines("old-rotate-data-key.txt", "app/server/security/rotate-data-key.server.ts")).toEqual([
      2, 3, 4,
    ]);
  });

  it("refuses sign-in importing the demo seed or a back-office service", async () => {
    expect(await refusedLines("old-demo-info.txt", "app/server/auth/demo-info.server.ts")).toEqual([3, 4]);
  });

  it("refuses the ledger importing a payment, a back-office service or a job, by any path", async () => {
    expect(await refusedLines("ledger-reaches-up.txt", "app/server/ledger/fixture.server.ts")).toEqual([2, 3, 4]);
  });

  it("lets a floor import itself and the floors below", async () => {
    expect(await refusedLines("ledger-clean.txt", "app/server/ledger/fixture.server.ts")).toEqual([]);
  });
});
