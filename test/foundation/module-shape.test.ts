import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

// docs/CONVENTIONS.md: one module name across the layers, and the same file names in each module,
// so a newcomer finds a module's decider, commands, read model and routes without searching. The
// files are found by what they export (a decider, a projection, a route table) or do (append
// events), not by grepping names.
const test = suite('every module has the same shape');

const ROOT = new URL('../../', import.meta.url).pathname;
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []));
const modulesOf = (layer: string) =>
  readdirSync(join(ROOT, layer), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
const named = (file: string, kind: string) => basename(file) === `${kind}.ts` || basename(file).endsWith(`-${kind}.ts`);

/** What every layer above the domain may hold beside the domain's modules, and why. */
const CROSS_CUTTING: Record<string, string> = {
  console: 'the HTML console over every module',
  mcp: 'the MCP tool surface over every module',
  'personal-data': 'erasure and export across every module',
  llm: 'the language-model port the committee and opinions share',
  'object-store': 'the file store port',
};

/** Every file of a layer whose exports include one `is` accepts. */
async function exporting(layer: string, is: (value: Record<string, unknown>) => boolean): Promise<string[]> {
  const found: string[] = [];
  for (const file of files(join(ROOT, layer))) {
    const values = Object.values(await import(file)) as unknown[];
    if (values.some((value) => value !== null && typeof value === 'object' && is(value as Record<string, unknown>))) found.push(relative(ROOT, file));
  }
  return found;
}

test('http/, application/ and projections/ name the domain modules (plus the documented cross-cutting ones)', () => {
  const domain = new Set(modulesOf('domain'));
  for (const layer of ['http', 'application', 'projections']) {
    const strays = modulesOf(layer).filter((m) => !domain.has(m) && !(m in CROSS_CUTTING));
    assert.equal(strays, [], `${layer}/ modules with no domain module of that name`);
  }
});

test('a decider lives in decider.ts or <aggregate>-decider.ts', async () => {
  const deciders = await exporting('domain', (v) => typeof v.decide === 'function' && typeof v.evolve === 'function' && typeof v.initialState === 'function');
  assert.ok(deciders.length >= 20, deciders.join(', '));
  assert.equal(
    deciders.filter((file) => !named(file, 'decider')),
    [],
  );
});

test('a projection lives in projection.ts or <read model>-projection.ts, beside its queries.ts', async () => {
  const projections = await exporting('projections', (v) => typeof v.name === 'string' && Array.isArray(v.eventTypes) && typeof v.handle === 'function');
  assert.ok(projections.length >= 15, projections.join(', '));
  assert.equal(
    projections.filter((file) => !named(file, 'projection')),
    [],
  );
  assert.equal(
    modulesOf('projections').filter((m) => !existsSync(join(ROOT, 'projections', m, 'queries.ts'))),
    [],
    'read models without queries.ts',
  );
});

test('a route table lives in routes.ts or <part>-routes.ts (a kind registry aside); every http module has routes.ts', async () => {
  // The app's own entry first: its import order is the one the kinds' circular imports expect.
  await import(join(ROOT, 'http/modules.ts'));
  const tables = await exporting('http', (v) => typeof v.module === 'string' && Array.isArray(v.routes));
  assert.ok(tables.length >= 20, tables.join(', '));
  // collection/kinds/index.ts gathers each item kind's routes, pages and schemas, as domain/collection/kinds/index.ts gathers their rules.
  assert.equal(
    tables.filter((file) => !named(file, 'routes') && !file.endsWith('/kinds/index.ts')),
    [],
  );
  assert.equal(
    modulesOf('http').filter((m) => m !== 'mcp' && !existsSync(join(ROOT, 'http', m, 'routes.ts'))),
    [],
    'http modules without routes.ts',
  );
});

test('a presenter (what turns a read model or state into a reply) lives in present.ts or <part>-present.ts (an item kind aside)', () => {
  const presenters = files(join(ROOT, 'http'))
    .map((file) => relative(ROOT, file))
    .filter((file) => /^export (?:async )?(?:function|const) present[A-Z]/m.test(readFileSync(join(ROOT, file), 'utf8')));
  assert.ok(presenters.length >= 8, presenters.join(', '));
  // Each collection item kind keeps its routes, pages, schemas and presenter in one file of http/collection/kinds/.
  assert.equal(
    presenters.filter((file) => !named(file, 'present') && !file.startsWith('http/collection/kinds/')),
    [],
  );
});

/** Files that append events though they are neither command files nor processes, and why. */
const APPENDS_ELSEWHERE: Record<string, string> = {
  'application/command-handler.ts': 'handleCommand itself',
  'application/committee/writer.ts': "the deliberation process's one writer: opinions that land together are decided in turn and appended as one batch",
};

/** Modules whose events are all appended by their processes, so they have no command file, and why. */
const WRITTEN_BY_PROCESSES: Record<string, string> = {
  financial: "its extraction process records what it read on the report's stream; the statements arrive through financial-upload's commands",
};

/** Background work that may decide on the state it has just read: a process manager, a worker, a scheduler job, a dispatcher. */
const PROCESS_KINDS = ['process', 'worker', 'workers', 'job', 'dispatcher'];

/** Whether a file's code (comments aside) decides a command or appends to the event store. */
const appends = (file: string) =>
  /\bhandleCommand\(|\.appendToStream\(/.test(
    readFileSync(join(ROOT, file), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('//'))
      .join('\n'),
  );
const moduleOf = (file: string) => file.split('/')[1]!;

test('a module decides in commands.ts or <part>-commands.ts; besides them, only its processes, workers and jobs append', () => {
  const inApplication = files(join(ROOT, 'application')).map((file) => relative(ROOT, file));
  const appending = inApplication.filter(appends);
  assert.ok(appending.length >= 30, appending.join(', '));
  const stray = appending.filter((file) => !named(file, 'commands') && !PROCESS_KINDS.some((kind) => named(file, kind)) && !(file in APPENDS_ELSEWHERE));
  assert.equal(stray, [], 'files that append events outside command files and processes (move the command into commands.ts or <part>-commands.ts)');

  const writers = [...new Set(appending.filter((file) => !(file in APPENDS_ELSEWHERE)).map(moduleOf))];
  assert.ok(writers.length >= 15, writers.join(', '));
  const withoutCommands = writers.filter((m) => !appending.some((file) => moduleOf(file) === m && named(file, 'commands'))).sort();
  assert.equal(withoutCommands, Object.keys(WRITTEN_BY_PROCESSES).sort(), 'modules that append events with no commands.ts or <part>-commands.ts');

  for (const layer of ['projections', 'http', 'service']) {
    assert.equal(
      files(join(ROOT, layer))
        .map((file) => relative(ROOT, file))
        .filter(appends),
      [],
      `${layer}/ files that append events instead of calling a command`,
    );
  }
});

test.run();
