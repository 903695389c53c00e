/** Exports of a folded run as documents: Markdown and one self-contained HTML page. Pure. */
import type { RunState } from '../../core/index.js';
import { exportHtml, exportHtmlRuns } from './html.js';
import { exportMarkdown, exportMarkdownRuns } from './markdown.js';
import type { ExportFormat } from './formats.js';
import type { ExportOptions } from './summary.js';

export { exportHtml, exportHtmlRuns, escapeHtml } from './html.js';
export { exportMarkdown, exportMarkdownRuns, fence, codeSpan, inlineText } from './markdown.js';
export { transcriptSections, type Section } from './sections.js';
export { runSummary, shownStatus, type ExportOptions, type ExportTiming, type RunTimes, type SummaryField, type WorkspaceChanges } from './summary.js';

export { EXPORT_FORMATS, type ExportFormat } from './formats.js';

export function exportRun(format: ExportFormat, state: RunState, options: ExportOptions = {}): string {
  return format === 'html' ? exportHtml(state, options) : exportMarkdown(state, options);
}

/** Several runs in one document (a conversation across its runs, oldest first). */
export function exportRuns(format: ExportFormat, runs: readonly { state: RunState; options?: ExportOptions }[]): string {
  return format === 'html' ? exportHtmlRuns(runs) : exportMarkdownRuns(runs);
}
