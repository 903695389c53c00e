/** The document formats a run exports to: a module of its own, so the CLI lists them without loading the renderers. */
export const EXPORT_FORMATS = ['md', 'html'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
