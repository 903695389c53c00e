import { describe, expect, it } from 'vitest';
import { backends, openStore, registerBackend } from '../../src/index.js';
import { MemoryBackend } from '../../src/store/memory/memory-store.js';

describe('backend registry', () => {
  it('links the built-in backends by name', async () => {
    expect(backends()).toEqual(expect.arrayContaining(['file', 'memory']));
    expect((await openStore('memory')).backend).toBe('memory');
    const file = await openStore('file', {}, { stateDir: '/tmp/x' });
    expect([file.backend, file.location]).toEqual(['file', 'file store in /tmp/x/runs']);
  });

  it('names the linked backends when asked for an unknown one', async () => {
    await expect(openStore('s3')).rejects.toMatchObject({
      code: 'unknown_backend',
      message: expect.stringMatching(/unknown session backend "s3"; linked backends: .*file.*memory/),
    });
  });

  it('fails at construction on an unknown option', async () => {
    await expect(openStore('memory', { size: 1 })).rejects.toMatchObject({ code: 'backend_options' });
    await expect(openStore('file', { directry: '/x' })).rejects.toMatchObject({
      code: 'backend_options',
      message: expect.stringContaining('"directry"'),
    });
  });

  it('accepts backends registered from outside, and never replaces a linked one', async () => {
    registerBackend('custom-test', async () => new MemoryBackend());
    expect(backends()).toContain('custom-test');
    expect((await openStore('custom-test')).backend).toBe('memory');
    expect(() => registerBackend('custom-test', async () => new MemoryBackend())).toThrow(/already linked/);
    expect(() => registerBackend('file', async () => new MemoryBackend())).toThrow(/already linked/);
  });
});
