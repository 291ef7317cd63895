/**
 * The rules of the house (docs/architecture.md), checked on the module graph that Deno itself
 * resolves (`deno info --json`), so that a move that breaks one fails CI:
 * - the edges (rest, mcp, web, cli) never import each other, and nothing below them imports an
 *   edge: only the composition root (src/app.ts, main.ts) wires them together;
 * - only src/db/ opens connections (imports the postgres or PGlite packages as code);
 * - no import cycle between modules, nor between folders (a folder that imports a folder that
 *   imports it back is a circle the file rule cannot see);
 * - imports run only down the floors of docs/architecture.md (FLOORS), never up or sideways;
 * - SQL is written only in the domain folders (db, catalog, accounts, metering, oauth, ingest,
 *   watches, billing), never in an edge or in platform;
 * - no source file over 400 lines, except data-only files;
 * - src/catalog/ in rooms (CATALOG_ROOMS), each opened by its main file, at most 12 files at its
 *   top, and no cycle between its rooms and top-level files.
 * Each rule is a pure function of the graph, also tried on small graphs that break it.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const SRC = new URL("src/", ROOT);

const EDGES = new Set(["rest", "mcp", "web", "cli"]);
const SQL_HOMES = new Set([
  "db",
  "catalog",
  "accounts",
  "metering",
  "oauth",
  "ingest",
  "watches",
  "billing",
]);
/** Files that hold data only (word lists), exempt from the size limit. */
const DATA_ONLY = new Set(["src/ingest/demo_words.ts"]);
const MAX_LINES = 400;
/** Packages that open database connections. */
const DRIVERS = [/^npm:\/?postgres@/, /^npm:\/?@electric-sql\/pglite/];

/** A module of the graph: its repository path and what it imports. */
export interface ModuleNode {
  path: string;
  /** Repository paths of local modules it imports (as code or for types). */
  imports: string[];
  /** npm specifiers it imports as code (not `import type`). */
  codePackages: string[];
}

/** The area of a path: the folder under src/ ("rest", "catalog", ...), "root" for src/*.ts. */
function areaOf(path: string): string | undefined {
  const match = /^src\/(?:([^/]+)\/)?[^/]+$/.exec(path) ??
    /^src\/([^/]+)\//.exec(path);
  if (!match) return undefined;
  return match[1] ?? "root";
}

/** Violations of the edge rules: edge to edge, or anything but the root importing an edge. */
export function edgeViolations(graph: ModuleNode[]): string[] {
  const out: string[] = [];
  for (const node of graph) {
    const from = areaOf(node.path);
    if (from === undefined || from === "root") continue;
    for (const target of node.imports) {
      const to = areaOf(target);
      if (to === undefined || !EDGES.has(to) || to === from) continue;
      out.push(
        EDGES.has(from)
          ? `edge ${from} imports edge ${to}: ${node.path} -> ${target}`
          : `${from} imports the edge ${to}: ${node.path} -> ${target}`,
      );
    }
  }
  return out;
}

/** What each floor below the domains may import besides itself: platform nothing, db platform. */
const GROUND: Record<string, string[]> = { platform: [], db: ["platform"] };

/** Violations of the ground floor: platform/ or db/ importing a folder above it. */
export function groundViolations(graph: ModuleNode[]): string[] {
  const out: string[] = [];
  for (const node of graph) {
    const from = areaOf(node.path);
    const allowed = from === undefined ? undefined : GROUND[from];
    if (!allowed) continue;
    for (const target of node.imports) {
      const to = areaOf(target);
      if (to !== undefined && to !== from && !allowed.includes(to)) {
        out.push(`${from} imports ${to}, above it: ${node.path} -> ${target}`);
      }
    }
  }
  return out;
}

/**
 * The floors of src/ (docs/architecture.md's picture), lowest first: a folder imports only
 * folders on floors below its own, so no import runs back up. The edges share a floor (they may
 * not import each other: edgeViolations), as do the domains of one floor.
 */
const FLOORS: Record<string, number> = {
  platform: 0,
  db: 1,
  accounts: 2,
  catalog: 2,
  oauth: 3,
  metering: 3,
  billing: 3,
  watches: 3,
  ingest: 4,
  rest: 5,
  mcp: 5,
  web: 5,
  cli: 5,
  root: 6,
};

/** Imports that run up the floors or sideways between folders, and folders with no floor. */
export function floorViolations(graph: ModuleNode[]): string[] {
  const out: string[] = [];
  for (const node of graph) {
    const from = areaOf(node.path);
    if (from === undefined) continue;
    if (FLOORS[from] === undefined) {
      out.push(`${from} has no floor in FLOORS: ${node.path}`);
      continue;
    }
    for (const target of node.imports) {
      const to = areaOf(target);
      if (to === undefined || to === from || FLOORS[to] === undefined) continue;
      if (FLOORS[to] >= FLOORS[from] && !(EDGES.has(from) && EDGES.has(to))) {
        out.push(`${from} imports ${to}, not below it: ${node.path} -> ${target}`);
      }
    }
  }
  return out;
}

/** Modules outside src/db/ that import a database driver as code. */
export function connectionViolations(graph: ModuleNode[]): string[] {
  return graph.filter((node) => node.path.startsWith("src/") && !node.path.startsWith("src/db/"))
    .flatMap((node) =>
      node.codePackages.filter((p) => DRIVERS.some((d) => d.test(p)))
        .map((p) => `${node.path} opens connections through ${p}`)
    );
}

/** Every import cycle, each as the list of its modules (strongly connected components). */
export function cycles(graph: ModuleNode[]): string[][] {
  const byPath = new Map(graph.map((n) => [n.path, n]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (path: string) => {
    index.set(path, next);
    low.set(path, next++);
    stack.push(path);
    onStack.add(path);
    for (const target of byPath.get(path)?.imports ?? []) {
      if (!byPath.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(path, Math.min(low.get(path)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(path, Math.min(low.get(path)!, index.get(target)!));
      }
    }
    if (low.get(path) === index.get(path)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== path);
      const selfLoop = byPath.get(path)!.imports.includes(path);
      if (component.length > 1 || selfLoop) found.push(component.sort());
    }
  };
  for (const node of graph) if (!index.has(node.path)) visit(node.path);
  return found;
}

/**
 * Every cycle between folders of src/ (src/*.ts counts as the folder "root"), each as the list of
 * its folders: the folders' graph, with an arrow wherever a file of one imports a file of another.
 */
export function folderCycles(graph: ModuleNode[]): string[][] {
  const arrows = new Map<string, Set<string>>();
  for (const node of graph) {
    const from = areaOf(node.path);
    if (from === undefined) continue;
    const targets = arrows.get(from) ?? new Set<string>();
    arrows.set(from, targets);
    for (const target of node.imports) {
      const to = areaOf(target);
      if (to !== undefined && to !== from) targets.add(to);
    }
  }
  return cycles([...arrows].map(([path, to]) => ({ path, imports: [...to], codePackages: [] })));
}

/**
 * The rooms of src/catalog/ (docs/architecture.md), each with its main file, which opens with what
 * the room is for. At most CATALOG_TOP files stay at the catalogue's top: what every room shares
 * (schemas, cache, cursors, scrubbing, trend rule), the content operations (content.ts) and the
 * tool answers' compaction.
 */
export const CATALOG_ROOMS: Record<string, string> = {
  lists: "opportunities.ts",
  questions: "search.ts",
  meaning: "reading.ts",
  similar: "similar.ts",
  themes: "themes.ts",
  public: "public_catalog.ts",
};
const CATALOG_TOP = 12;

/** The node of a catalogue path: its room ("catalog/lists"), or itself for a top-level file. */
function catalogNode(path: string): string | undefined {
  const match = /^src\/catalog\/(?:([^/]+)\/)?[^/]+$/.exec(path) ??
    /^src\/catalog\/([^/]+)\//.exec(path);
  if (!match) return undefined;
  return match[1] ? `catalog/${match[1]}` : path;
}

/**
 * Cycles inside src/catalog/ between its rooms and its top-level files: an arrow wherever a file
 * of one imports a file of another, so that arrows run one way between rooms.
 */
export function catalogCycles(graph: ModuleNode[]): string[][] {
  const arrows = new Map<string, Set<string>>();
  for (const node of graph) {
    const from = catalogNode(node.path);
    if (from === undefined) continue;
    const targets = arrows.get(from) ?? new Set<string>();
    arrows.set(from, targets);
    for (const target of node.imports) {
      const to = catalogNode(target);
      if (to !== undefined && to !== from) targets.add(to);
    }
  }
  return cycles([...arrows].map(([path, to]) => ({ path, imports: [...to], codePackages: [] })));
}

/**
 * Violations of the catalogue's rooms: a sub-folder not in CATALOG_ROOMS, a room whose main file
 * is missing or does not open with a doc comment naming the room, more than CATALOG_TOP files at
 * the top.
 */
export function catalogRoomViolations(files: { path: string; text: string }[]): string[] {
  const out: string[] = [];
  const rooms = new Set<string>();
  let top = 0;
  for (const { path } of files) {
    const match = /^src\/catalog\/(?:([^/]+)\/)?[^/]+$/.exec(path) ??
      /^src\/catalog\/([^/]+)\//.exec(path);
    if (!match) continue;
    if (match[1]) rooms.add(match[1]);
    else top++;
  }
  for (const room of rooms) {
    if (!CATALOG_ROOMS[room]) out.push(`src/catalog/${room}/ is not a room of CATALOG_ROOMS`);
  }
  for (const [room, main] of Object.entries(CATALOG_ROOMS)) {
    const path = `src/catalog/${room}/${main}`;
    const file = files.find((f) => f.path === path);
    if (!file) out.push(`${path}, the main file of ${room}/, is missing`);
    else if (!file.text.startsWith(`/**\n * src/catalog/${room}/: `)) {
      out.push(`${path} does not open with what src/catalog/${room}/ is for`);
    }
  }
  if (top > CATALOG_TOP) {
    out.push(`src/catalog/ has ${top} files at its top (at most ${CATALOG_TOP})`);
  }
  return out;
}

/** Source files (path and text) that write SQL outside the domain folders. */
export function sqlViolations(files: { path: string; text: string }[]): string[] {
  return files.filter(({ path }) => {
    const area = areaOf(path);
    return area !== undefined && !SQL_HOMES.has(area);
  }).filter(({ text }) => /\bsql(<[^>]*>)?`(?! )|\.unsafe\(/.test(text))
    .map(({ path }) => `${path} writes SQL`);
}

/** Source files over the size limit. */
export function sizeViolations(files: { path: string; text: string }[]): string[] {
  return files.filter(({ path }) => !DATA_ONLY.has(path))
    .map(({ path, text }) => ({ path, lines: text.split("\n").length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ path, lines }) => `${path} has ${lines} lines (at most ${MAX_LINES})`);
}

async function sourceFiles(): Promise<{ path: string; text: string }[]> {
  const out: { path: string; text: string }[] = [];
  const walk = async (dir: URL, prefix: string) => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) await walk(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`);
      else if (entry.name.endsWith(".ts")) {
        out.push({
          path: `${prefix}${entry.name}`,
          text: await Deno.readTextFile(new URL(entry.name, dir)),
        });
      }
    }
  };
  await walk(SRC, "src/");
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

interface InfoDependency {
  code?: { specifier: string };
  type?: { specifier: string };
}

/** The graph of every module under src/ (and main.ts, serve.ts), as Deno resolves it. */
async function moduleGraph(files: { path: string }[]): Promise<ModuleNode[]> {
  const entry = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    const roots = [...files.map((f) => f.path), "main.ts", "serve.ts"];
    await Deno.writeTextFile(
      entry,
      roots.map((p) => `import "${new URL(p, ROOT).href}";`).join("\n") + "\n",
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      cwd: ROOT.pathname,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
      modules: { specifier: string; dependencies?: (InfoDependency & { specifier: string })[] }[];
    };
    const local = (specifier: string) =>
      specifier.startsWith(ROOT.href) ? specifier.slice(ROOT.href.length) : undefined;
    return info.modules.flatMap((m) => {
      const path = local(m.specifier);
      if (!path) return [];
      const deps = m.dependencies ?? [];
      return [{
        path,
        imports: deps.flatMap((d) => [d.code?.specifier, d.type?.specifier])
          .map((s) => s && local(s)).filter((s): s is string => !!s),
        codePackages: deps.map((d) => d.code?.specifier)
          .filter((s): s is string => !!s && s.startsWith("npm:")),
      }];
    });
  } finally {
    await Deno.remove(entry);
  }
}

Deno.test("architecture: the rules of the house hold for src/", async (t) => {
  const files = await sourceFiles();
  const graph = await moduleGraph(files);
  assert.ok(graph.length >= files.length, "every source file is in the graph");
  await t.step("edges never import each other; nothing below them imports one", () => {
    assert.deepEqual(edgeViolations(graph), []);
  });
  await t.step("platform imports no other folder, db only platform", () => {
    assert.deepEqual(groundViolations(graph), []);
  });
  await t.step("only src/db/ opens database connections", () => {
    assert.deepEqual(connectionViolations(graph), []);
  });
  await t.step("no import cycle", () => {
    assert.deepEqual(cycles(graph), []);
  });
  await t.step("no cycle between folders", () => {
    assert.deepEqual(folderCycles(graph), []);
  });
  await t.step("imports run only down the floors", () => {
    assert.deepEqual(floorViolations(graph), []);
  });
  await t.step("SQL only in the domain folders", () => {
    assert.deepEqual(sqlViolations(files), []);
  });
  await t.step(`no source file over ${MAX_LINES} lines except word lists`, () => {
    assert.deepEqual(sizeViolations(files), []);
  });
  await t.step("src/catalog/: its rooms, each opened by its main file; arrows one way", () => {
    assert.deepEqual(catalogRoomViolations(files), []);
    assert.deepEqual(catalogCycles(graph), []);
  });
});

Deno.test("architecture: each rule catches the mistake it is for", async (t) => {
  const node = (path: string, imports: string[] = [], codePackages: string[] = []) => ({
    path,
    imports,
    codePackages,
  });
  await t.step("an edge importing another edge", () => {
    const graph = [node("src/mcp/server.ts", ["src/rest/handler.ts"]), node("src/rest/handler.ts")];
    assert.deepEqual(edgeViolations(graph), [
      "edge mcp imports edge rest: src/mcp/server.ts -> src/rest/handler.ts",
    ]);
  });
  await t.step("catalog or ingest importing an edge; the root may", () => {
    const graph = [
      node("src/catalog/content.ts", ["src/web/html.ts"]),
      node("src/ingest/seed.ts", ["src/cli/args.ts"]),
      node("src/app.ts", ["src/web/handler.ts", "src/rest/handler.ts"]),
    ];
    assert.deepEqual(edgeViolations(graph), [
      "catalog imports the edge web: src/catalog/content.ts -> src/web/html.ts",
      "ingest imports the edge cli: src/ingest/seed.ts -> src/cli/args.ts",
    ]);
  });
  await t.step("the ground floor importing a floor above it", () => {
    const graph = [
      node("src/platform/metrics.ts", ["src/db/status.ts", "src/platform/config.ts"]),
      node("src/db/open.ts", ["src/platform/config.ts", "src/catalog/common.ts"]),
      node("src/catalog/common.ts", ["src/db/open.ts"]),
    ];
    assert.deepEqual(groundViolations(graph), [
      "platform imports db, above it: src/platform/metrics.ts -> src/db/status.ts",
      "db imports catalog, above it: src/db/open.ts -> src/catalog/common.ts",
    ]);
  });
  await t.step("an import up the floors or sideways, and a folder with no floor", () => {
    const graph = [
      node("src/accounts/api_keys.ts", ["src/metering/admission.ts", "src/db/open.ts"]),
      node("src/metering/admission.ts", ["src/accounts/credentials.ts", "src/billing/store.ts"]),
      node("src/reports/monthly.ts", ["src/db/open.ts"]),
      node("src/app.ts", ["src/rest/handler.ts"]),
    ];
    assert.deepEqual(floorViolations(graph), [
      "accounts imports metering, not below it: src/accounts/api_keys.ts -> src/metering/admission.ts",
      "metering imports billing, not below it: src/metering/admission.ts -> src/billing/store.ts",
      "reports has no floor in FLOORS: src/reports/monthly.ts",
    ]);
  });
  await t.step("a driver imported as code outside src/db/", () => {
    const graph = [
      node("src/catalog/lists/opportunities.ts", [], ["npm:/postgres@3.4.9"]),
      node("src/db/open.ts", [], ["npm:/postgres@3.4.9"]),
      node("src/web/x.ts", [], ["npm:@electric-sql/pglite@0.5.14"]),
    ];
    assert.deepEqual(connectionViolations(graph), [
      "src/catalog/lists/opportunities.ts opens connections through npm:/postgres@3.4.9",
      "src/web/x.ts opens connections through npm:@electric-sql/pglite@0.5.14",
    ]);
  });
  await t.step("a cycle of three modules and a module importing itself", () => {
    const graph = [
      node("src/a.ts", ["src/b.ts"]),
      node("src/b.ts", ["src/c.ts"]),
      node("src/c.ts", ["src/a.ts"]),
      node("src/d.ts", ["src/d.ts"]),
      node("src/e.ts", ["src/a.ts"]),
    ];
    assert.deepEqual(cycles(graph), [["src/a.ts", "src/b.ts", "src/c.ts"], ["src/d.ts"]]);
  });
  await t.step("two folders importing each other through different files", () => {
    // No file cycle here, yet accounts and watches lean on each other.
    const graph = [
      node("src/accounts/oauth_documents.ts", ["src/watches/ssrf.ts"]),
      node("src/watches/ssrf.ts"),
      node("src/watches/webhook.ts", ["src/accounts/sessions.ts"]),
      node("src/accounts/sessions.ts"),
      node("src/catalog/common.ts", ["src/db/open.ts"]),
      node("src/db/open.ts"),
    ];
    assert.deepEqual(cycles(graph), []);
    assert.deepEqual(folderCycles(graph), [["accounts", "watches"]]);
  });
  await t.step("two catalogue rooms leaning on each other, and rooms out of order", () => {
    const graph = [
      node("src/catalog/questions/search.ts", ["src/catalog/lists/opportunities.ts"]),
      node("src/catalog/lists/opportunities.ts", ["src/catalog/schemas.ts"]),
      node("src/catalog/lists/counts.ts", ["src/catalog/questions/judge.ts"]),
      node("src/catalog/questions/judge.ts"),
      node("src/catalog/schemas.ts"),
      node("src/catalog/content.ts", ["src/catalog/questions/search.ts"]),
    ];
    assert.deepEqual(cycles(graph), []);
    assert.deepEqual(catalogCycles(graph), [["catalog/lists", "catalog/questions"]]);
    const opening = (room: string) => `/**\n * src/catalog/${room}/: what it is for.\n */\n`;
    const files = [
      ...Object.entries(CATALOG_ROOMS).filter(([room]) => room !== "themes")
        .map(([room, main]) => ({ path: `src/catalog/${room}/${main}`, text: opening(room) })),
      { path: "src/catalog/themes/themes.ts", text: "import x from './y.ts';\n" },
      { path: "src/catalog/extras/more.ts", text: opening("extras") },
      ...Array.from({ length: 13 }, (_, i) => ({ path: `src/catalog/f${i}.ts`, text: "" })),
    ];
    assert.deepEqual(catalogRoomViolations(files), [
      "src/catalog/extras/ is not a room of CATALOG_ROOMS",
      "src/catalog/themes/themes.ts does not open with what src/catalog/themes/ is for",
      "src/catalog/ has 13 files at its top (at most 12)",
    ]);
  });
  await t.step("SQL in an edge or in platform", () => {
    assert.deepEqual(
      sqlViolations([
        { path: "src/rest/handler.ts", text: "await sql`select 1`;" },
        { path: "src/platform/metrics.ts", text: "sql<{ n: number }[]>`select 1`" },
        { path: "src/catalog/themes/themes.ts", text: "sql`select 1`" },
        { path: "src/web/handler.ts", text: "/** only `sql` and `context` */" },
      ]),
      ["src/rest/handler.ts writes SQL", "src/platform/metrics.ts writes SQL"],
    );
  });
  await t.step("a file over the size limit, word lists excepted", () => {
    const long = "x\n".repeat(MAX_LINES + 1);
    assert.deepEqual(
      sizeViolations([
        { path: "src/ingest/demo_words.ts", text: long },
        { path: "src/web/account/account.ts", text: long },
      ]),
      [`src/web/account/account.ts has ${MAX_LINES + 1} lines (at most ${MAX_LINES})`],
    );
  });
});
