/** Renderings of a folded run: resume narration, the plain dump, and the viewer's items. All pure. */
export { StreamSanitizer, sanitize, sanitizeLine, terminalSafeJson } from './sanitize.js';
export { plain, type Style } from './style.js';
export { callLine, formatCall, elideMiddle, type CallLineOptions } from './calls.js';
export { showResult, resultNotes, resultLines, type ShownResult } from './results.js';
export { transcriptItems, transcriptGroups, type TranscriptGroup, type TranscriptRange, side, gapBefore, type TranscriptItem, type ItemKind, type CallNote, type RemoteCall } from './transcript.js';
export { type ToolAgents, remoteAgents, remoteCountText } from './remote-count.js';
export { dumpTranscript, dumpItem, type DumpOptions, type Prose } from './dump.js';
export { resumeNarration, DEFAULT_NARRATED_TURNS, type NarrationOptions } from './narration.js';
export { elidedLine, endLine, pendingLine, callNoteText, callSuffix, remoteText } from './lines.js';
export { textHead } from './text-head.js';
export { FollowedTranscript, type FollowOptions } from './follow.js';
export { snippet, type SnippetOptions } from './snippet.js';
export { searchPlaces, type SearchPlace, type SearchRole } from './search.js';
