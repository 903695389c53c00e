/** The formats a stored run exports to: a module of its own, so the command lists them without loading the renderers. */
import { EXPORT_FORMATS } from '../render/export/formats.js';

/** `md` and `html` (the renderings, src/render/export), and `jsonl`: the stored lines themselves, byte for byte. */
export const SESSION_FORMATS = [...EXPORT_FORMATS, 'jsonl'] as const;
/** One of SESSION_FORMATS. */
export type SessionFormat = (typeof SESSION_FORMATS)[number];
