/**
 * node:readline, taken at its first use rather than imported: a run that asks
 * nothing and reads no typed turn (a resume on no terminal) does not load it.
 */
export function readline(): typeof import('node:readline') {
  return process.getBuiltinModule('node:readline');
}
