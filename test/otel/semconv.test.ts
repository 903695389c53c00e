import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as ours from '../../src/otel/semconv.js';

describe('the attribute names the spans carry', () => {
  it('are the GenAI conventions of the @opentelemetry/semantic-conventions version they say they follow', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../node_modules/@opentelemetry/semantic-conventions/package.json', import.meta.url), 'utf8')) as { version: string };
    expect(ours.GENAI_SEMCONV).toContain(`@opentelemetry/semantic-conventions ${pkg.version} `);
    const published = incubating as unknown as Record<string, unknown>;
    const copied = Object.entries(ours).filter(([name]) => /^(ATTR_GEN_AI_|GEN_AI_|ATTR_ERROR_TYPE|ATTR_SERVICE_)/.test(name));
    expect(copied.length).toBeGreaterThan(20);
    for (const [name, value] of copied) expect(published[name], name).toBe(value);
  });

  it('name what the conventions do not in logbook\'s own namespace', () => {
    const own = Object.entries(ours).filter(([name]) => name.startsWith('ATTR_LOGBOOK_'));
    for (const [, value] of own) expect(value).toMatch(/^logbook\.[a-z_.]+$/);
  });
});
