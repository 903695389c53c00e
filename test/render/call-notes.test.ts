/**
 * A call that awaits an approval, was denied, or was not re-run after an
 * interruption is shown as such in every rendering: the transcript's items,
 * the plain transcript (`session show --transcript`), the resume narration,
 * the viewer and both exports. Each is a fact the records tell: the suspend
 * before the call names it, and the results given instead carry fixed texts.
 */
import { describe, expect, it } from 'vitest';
import { type Payload } from '../../src/index.js';
import { deniedResult, notRerunResult, stoppedResult } from '../../src/core/index.js';
import { exportHtml, exportMarkdown } from '../../src/render/export/index.js';
import { dumpTranscript, resumeNarration, transcriptItems } from '../../src/render/index.js';
import { entriesFor } from '../../src/render/viewer/model.js';
import { call, result, runOf, text, turn } from '../helpers/runs.js';

const withheld = (body: { tool_use_id: string; content: string; is_error?: boolean }): Payload => ({
  tool_result: { tool_use_id: body.tool_use_id, result: body },
});

/** Three calls: one denied, one not re-run, and one the run stopped before for its approval. */
const state = () =>
  runOf([
    turn(0, [text('Three steps.'), call('d', 'deploy', { env: 'prod' }), call('s', 'migrate', { db: 'main' }), call('w', 'deploy', { env: 'eu' })]),
    withheld(deniedResult('d', 'frozen')),
    withheld(notRerunResult('s')),
    { terminal: { reason: 'suspended', message: 'awaiting approval of call w (deploy)' } },
  ]);

describe('call notes', () => {
  it('are on the transcript items, from the records alone', () => {
    const calls = transcriptItems(state()).filter((i) => i.kind === 'call');
    expect(calls.map((c) => [c.id, c.note])).toEqual([
      ['d', 'denied'],
      ['s', 'not_rerun'],
      ['w', 'awaiting'],
    ]);
    // A tool's own error result, or a suspend that names no call, gives no note.
    const plain = runOf([turn(0, [call('a', 'deploy', {}), call('b', 'deploy', {})]), result('a', 'denied by the operators', true), { terminal: { reason: 'suspended' } }]);
    expect(transcriptItems(plain).filter((i) => i.kind === 'call').map((c) => c.note)).toEqual([undefined, undefined]);
  });

  it('follow the call line in the plain transcript and the resume narration', () => {
    for (const out of [dumpTranscript(state()), resumeNarration(state())]) {
      expect(out).toContain('» deploy {"env":"prod"} (denied by the operator)\n');
      expect(out).toContain('» migrate {"db":"main"} (not re-run after an interruption)\n');
      expect(out).toContain('» deploy {"env":"eu"} (awaits approval)\n');
    }
    expect(dumpTranscript(state())).toContain('── run suspended: awaiting approval of call w (deploy)');
    // With the results shown, the denial's reason is there too.
    expect(dumpTranscript(state(), { toolOutput: true })).toContain('  denied by the operator: frozen\n');
  });

  it('show in the viewer and in both exports', () => {
    const viewer = entriesFor(transcriptItems(state()), 120).flatMap((e) => e.folded);
    expect(viewer).toEqual(expect.arrayContaining(['» deploy {"env":"prod"} (denied by the operator)', '» deploy {"env":"eu"} (awaits approval)']));
    const md = exportMarkdown(state());
    expect(md).toContain('*(denied by the operator)*');
    expect(md).toContain('*(not re-run after an interruption)*');
    expect(md).toContain('*(awaits approval)*');
    const html = exportHtml(state());
    for (const note of ['(denied by the operator)', '(not re-run after an interruption)', '(awaits approval)']) expect(html).toContain(`<div class="notes">${note}</div>`);
  });

  it("mark the calls a chat's operator stopped, the one cut short and those never run", () => {
    const stopped = runOf([
      turn(0, [text('Two steps.'), call('a', 'wait', { s: 30 }), call('b', 'deploy', {})]),
      withheld(stoppedResult('a', true)),
      withheld(stoppedResult('b', false)),
    ]);
    expect(transcriptItems(stopped).filter((i) => i.kind === 'call').map((c) => [c.id, c.note])).toEqual([
      ['a', 'stopped'],
      ['b', 'stopped'],
    ]);
    expect(dumpTranscript(stopped)).toContain('» deploy {} (stopped by the operator)\n');
    expect(exportMarkdown(stopped)).toContain('*(stopped by the operator)*');
  });
});
