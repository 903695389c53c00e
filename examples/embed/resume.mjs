// A run killed in the middle of a tool batch, and resumed by another process.
// `node resume.mjs` starts a writer, kills it with SIGKILL while its second tool
// runs, then resumes the run in a new process: the model turn and the first
// tool's result are read back from the journal, and only the unfinished tool runs again.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileStore, defineAgent, defineTool, resumeRun, scriptProvider, startRun } from 'logbook';

const [role, dir] = process.argv.slice(2);

// Both processes build the same agent: a resume is checked against the configuration the run was written with.
function agent() {
  const step = defineTool({
    name: 'step',
    input_schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    run: async ({ n }) => {
      console.log(`${role}: step ${n} runs`);
      // Hangs until the process is killed; the timer keeps the process alive meanwhile (a bare pending promise would not).
      if (role === 'writer' && n === 2) await new Promise(() => setInterval(() => {}, 60_000));
      return `step ${n} done`;
    },
  });
  const provider = scriptProvider([
    { tool_calls: [{ name: 'step', input: { n: 1 } }, { name: 'step', input: { n: 2 } }] },
    { text: 'Both steps are done.' },
  ]);
  return defineAgent({ provider, tools: [step] });
}

if (role === 'writer') {
  const run = await startRun(new FileStore(dir), agent(), { id: 'job', prompt: 'Do both steps' });
  await run.execute(); // never returns: killed during step 2
} else if (role === 'resumer') {
  const run = await resumeRun(new FileStore(dir), agent(), 'job');
  const result = await run.execute();
  console.log(`resumer: run ${run.id} ${result.reason}: ${result.finalText}`);
} else {
  const tmp = mkdtempSync(join(tmpdir(), 'logbook-example-'));
  const self = fileURLToPath(import.meta.url);
  try {
    const writer = spawn(process.execPath, [self, 'writer', tmp], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => {
      writer.stdout.on('data', (chunk) => {
        process.stdout.write(chunk);
        if (String(chunk).includes('step 2 runs')) writer.kill('SIGKILL'); // a crash, not a clean stop
      });
      writer.on('exit', resolve);
    });
    const kept = readFileSync(join(tmp, 'job.jsonl'), 'utf8').trim().split('\n');
    console.log(`killed; the journal holds ${kept.length} records (meta, the model's turn, step 1's result)`);
    const resumer = spawn(process.execPath, [self, 'resumer', tmp], { stdio: 'inherit' });
    const code = await new Promise((resolve) => resumer.on('exit', resolve));
    process.exitCode = code;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
