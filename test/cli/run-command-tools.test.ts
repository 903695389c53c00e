/**
 * Command tools as a user meets them: `logbook run` with a model (the local
 * Messages API server) calling tools declared in agent.yaml, and what reaches the
 * command, the journal and the model.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { rawJson, useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-command-tools-');
const stateDir = join(dir, 'state');
const api = useFakeAnthropic();
let configs = 0;

beforeEach(() => api.reset());

const env = () => ({ ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0' });

/** A config with these tools (YAML text under `tools:`). */
function config(tools: string, extra = ''): string {
  const path = join(dir, `agent${++configs}.yaml`);
  writeFileSync(path, `provider: anthropic\nmodel: claude-test\n${extra}tools:\n${tools}`);
  return path;
}

/** The model calls `name` with this raw input, then answers. */
function callThenAnswer(name: string, input: string): void {
  api.reply(
    { message: { content: [{ type: 'tool_use', id: 'toolu_1', name, input: rawJson(input) }] } },
    { message: { content: [{ type: 'text', text: 'Done.' }] } },
  );
}

/** What the model was sent back as the tool's result. */
function resultSent(): { content: string; is_error?: boolean } {
  const messages = api.requests[1]!.json.messages as { content: { type: string; content: string; is_error?: boolean }[] }[];
  return messages.at(-1)!.content.find((b) => b.type === 'tool_result')!;
}

async function run(cfg: string, cwd = dir): Promise<CliResult> {
  return runCli(['run', '--config', cfg, '--state-dir', stateDir, 'go'], { cwd, env: env() });
}

function expectDone(r: CliResult): void {
  expect(r.stderr).not.toMatch(/^logbook:/m);
  expect(r.code).toBe(0);
}

describe('a tool whose input_schema holds null', () => {
  it('runs: enum and default with null, and the null a comma leaves in a { } mapping', async () => {
    const cfg = config(`  - name: show
    description: Show a mode.
    input_schema:
      type: object
      properties:
        mode: { enum: [fast, null], default: null }
        path: { type: string, description: Where to look, relative to here }
    command: [echo, shown, "{{mode}}"]
`);
    callThenAnswer('show', '{"mode":null}');
    const r = await run(cfg);
    expectDone(r);
    const sent = api.requests[0]!.json.tools[0].input_schema;
    expect(sent.properties.mode).toEqual({ enum: ['fast', null], default: null });
    expect(sent.properties.path).toEqual({ type: 'string', description: 'Where to look', 'relative to here': null });
    expect(JSON.parse(resultSent().content)).toMatchObject({ command: ['echo', 'shown'], exit_code: 0, output: 'shown\n' });
  });
});

describe('a value that begins with "-"', () => {
  const listFiles = `  - name: list_files
    description: List the files of a directory.
    input_schema: { type: object, properties: { path: { type: string } }, required: [path] }
    command: [sh, -c, 'find "$1" -type f | head -200', sh, "{{path}}"]
`;

  it('never reaches the command as an option: the model is told why it was refused', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'keep-me'), 'precious');
    callThenAnswer('list_files', '{"path":"-delete"}');
    const r = await run(config(listFiles), cwd);
    expectDone(r);
    expect(existsSync(join(cwd, 'keep-me'))).toBe(true);
    const result = resultSent();
    expect(result.is_error).toBe(true);
    const body = JSON.parse(result.content);
    expect(body.exit_code).toBeNull();
    expect(body.error).toMatch(/^not run: path is "-delete"; a value that begins with "-" could be taken for an option by the command, so list_files refuses it\./);
    expect(body.error).toContain('start it with ./');
  });

  it('reaches the command as a value when the tool allows it', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, '-notes.txt'), 'found --verbose here\n');
    callThenAnswer('grep', '{"pattern":"--verbose","path":"-notes.txt"}');
    const cfg = config(`  - name: grep
    input_schema: { type: object, properties: { pattern: { type: string }, path: { type: string } } }
    command: [grep, -n, -e, "{{pattern}}", --, "{{path}}"]
    allow_leading_dash: true
`);
    expectDone(await run(cfg, cwd));
    expect(JSON.parse(resultSent().content)).toMatchObject({ exit_code: 0, output: '1:found --verbose here\n' });
  });
});

describe('tool arguments', () => {
  it('are the model’s own spelling of each value, as the journal keeps it', async () => {
    const input = '{"n":1.0,"big":12345678901234567890123,"e":2.50E+3,"t":true,"o":{"x":1.50,"2":[]},"s":"caf\\u00e9 1.0"}';
    callThenAnswer('args', input);
    const cfg = config(`  - name: args
    input_schema: { type: object }
    command: [printf, "%s|", "{{n}}", "{{big}}", "{{e}}", "{{t}}", "{{o}}", "{{s}}"]
`);
    expectDone(await run(cfg));
    expect(JSON.parse(resultSent().content)).toMatchObject({
      command: ['printf', '%s|', '1.0', '12345678901234567890123', '2.50E+3', 'true', '{"x":1.50,"2":[]}', 'café 1.0'],
      output: '1.0|12345678901234567890123|2.50E+3|true|{"x":1.50,"2":[]}|café 1.0|',
    });
  });
});

describe('output cut at max_output', () => {
  it('is cut on a character boundary, and the cut bytes are counted', async () => {
    callThenAnswer('say', '{}');
    const cfg = config(`  - name: say
    command: [printf, "%s", "a€b"]
    max_output: 3
`);
    expectDone(await run(cfg));
    const output = JSON.parse(resultSent().content).output as string;
    expect(output).toBe('a\n[output truncated: 4 more bytes]');
  });
});

describe('numbers in agent.yaml', () => {
  const sleeper = (timeout: number) => `  - name: nap
    command: [sh, -c, "sleep 0.2; echo rested"]
    timeout: ${timeout}
`;

  it('a timeout Node can set holds; a longer one is refused before anything runs', async () => {
    callThenAnswer('nap', '{}');
    expectDone(await run(config(sleeper(2_147_483))));
    expect(JSON.parse(resultSent().content)).toMatchObject({ exit_code: 0, output: 'rested\n' });

    api.reset();
    const cfg = config(sleeper(2_147_484));
    const r = await run(cfg);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`logbook: ${cfg}: tools[0].timeout must be at most 2147483 (seconds: the longest timer Node.js can set, about 24.8 days)\n`);
    expect(api.requests).toHaveLength(0);
  });

  it('a max_tokens no journal can record exactly is refused, naming the key and the bound', async () => {
    const cfg = config(sleeper(1), 'max_tokens: 99999999999999999999999\n');
    const r = await run(cfg);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`logbook: ${cfg}: max_tokens must be at most 9007199254740991 (the largest integer a journal records exactly)\n`);
    expect(api.requests).toHaveLength(0);
  });
});

describe('the environment a command tool gets', () => {
  const KEY = 'sk-ant-secret-4f9a1c';
  const SHIPPED = join(import.meta.dirname, '../../examples/anthropic.yaml');

  /** The variables a tool's output lists, as /proc/self/environ holds them (NUL-separated). */
  const variables = (output: string): Record<string, string> =>
    Object.fromEntries(output.split('\0').filter((v) => v !== '').map((v) => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]));

  it('never holds the API key: the shipped read_file on /proc/self/environ leaks it to no journal, listing or request', async () => {
    callThenAnswer('read_file', '{"path":"/proc/self/environ"}');
    const r = await runCli(['run', '--config', SHIPPED, '--state-dir', stateDir, '--json', 'go'], {
      cwd: dir,
      env: { ...env(), ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: 'sk-openai-secret', LOGBOOK_SOME_SETTING: 'x' },
    });
    expectDone(r);
    const id = JSON.parse(r.stdout.split('\n')[0]!).meta.run_id as string;
    const output = JSON.parse(resultSent().content).output as string;
    // The tool ran and saw the few variables a program needs.
    expect(Object.keys(variables(output)).sort()).toEqual(['HOME', 'PATH']);
    expect(variables(output).PATH).toBe(process.env.PATH);
    const journal = readFileSync(join(stateDir, 'runs', `${id}.jsonl`), 'utf8');
    const shown = await runCli(['session', 'show', id, '--json', '--state-dir', stateDir], { env: env() });
    for (const text of [journal, r.stdout, r.stderr, shown.stdout, api.requests[1]!.body]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain('sk-openai-secret');
      expect(text).not.toContain('LOGBOOK_SOME_SETTING');
    }
  });

  it('holds what its env: names, a ${NAME} read from logbook’s environment, the key only when named', async () => {
    callThenAnswer('environ', '{}');
    const cfg = config(`  - name: environ
    command: [cat, /proc/self/environ]
    env:
      REGION: eu-west-1
      TOKEN: "Bearer \${DEPLOY_TOKEN}"
      ANTHROPIC_API_KEY: "\${ANTHROPIC_API_KEY}"
`);
    const r = await runCli(['run', '--config', cfg, '--state-dir', stateDir, 'go'], {
      cwd: dir,
      env: { ...env(), ANTHROPIC_API_KEY: KEY, DEPLOY_TOKEN: 'tok-1', TERM: 'xterm-test', OTHER: 'no' },
    });
    expectDone(r);
    const seen = variables(JSON.parse(resultSent().content).output as string);
    expect(seen).toEqual({ HOME: process.env.HOME, PATH: process.env.PATH, TERM: 'xterm-test', REGION: 'eu-west-1', TOKEN: 'Bearer tok-1', ANTHROPIC_API_KEY: KEY });
  });

  it('refuses, before the run starts, an env: naming a variable that is not set', async () => {
    const cfg = config(`  - name: environ
    command: [cat, /proc/self/environ]
    env: { TOKEN: "\${NOT_SET_ANYWHERE}" }
`);
    const r = await run(cfg);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'logbook: tool "environ": env.TOKEN names the environment variable NOT_SET_ANYWHERE, which is not set; set it, or change agent.yaml\n',
    );
    expect(api.requests).toHaveLength(0);
  });

  it('refuses a malformed ${ reference when the config is read', async () => {
    const cfg = config(`  - name: environ
    command: [cat, /proc/self/environ]
    env: { TOKEN: "\${BROKEN" }
`);
    const r = await run(cfg);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`logbook: ${cfg}: tools[0] (environ): env.TOKEN: "\${BROKEN" has a "\${" that does not open a \${NAME} reference (NAME: letters, digits, _)\n`);
  });
});
