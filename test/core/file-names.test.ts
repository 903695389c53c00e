import { describe, expect, it } from 'vitest';
import { modeChange, quotedPath } from '../../src/core/index.js';

describe('quotedPath', () => {
  it("quotes a name as git's diff headers do: controls, a double quote and a backslash C-escaped, octal where C has no letter", () => {
    // What `git diff` prints (core.quotePath off) for this very name.
    expect(quotedPath('a\tb"c\\d\u0001e\u007ff.txt')).toBe('"a\\tb\\"c\\\\d\\001e\\177f.txt"');
    expect(quotedPath('line\nbreak\r\u001b[31m')).toBe('"line\\nbreak\\r\\033[31m"');
  });

  it('leaves any other name as it is, spaces and non-ASCII letters included', () => {
    expect(quotedPath('dir/my file é.txt')).toBe('dir/my file é.txt');
  });
});

describe('modeChange', () => {
  it('is the modes of a file there on both sides whose mode changed, and nothing for a file added', () => {
    expect(modeChange({ status: 'modified', before: { mode: '100644' }, after: { mode: '100755' } })).toEqual({ from: '100644', to: '100755' });
    expect(modeChange({ status: 'modified', before: { mode: '100644' }, after: { mode: '100644' } })).toBeNull();
    expect(modeChange({ status: 'added', before: { mode: '000000' }, after: { mode: '100755' } })).toBeNull();
  });
});
