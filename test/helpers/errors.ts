/** The error a promise rejects with, or `no error` as its code when it resolves. */
export async function caught(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code: string; message: string };
  }
  return { code: 'no error', message: '' };
}
