/**
 * A tool call's result as the text the model reads: text content as it is,
 * every other kind of content summarised in words (what it is, its type, its
 * size), since a tool result in the journal is text.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';

/** A size in words: bytes, KiB or MiB. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Decoded length of base64 text, without decoding it. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${size(base64Bytes(block.data))}]`;
    case 'resource_link':
      return `[resource link: ${block.name} <${block.uri}>${block.mimeType ? `, ${block.mimeType}` : ''}]`;
    case 'resource': {
      const r = block.resource;
      const what = 'text' in r ? `${[...r.text].length} characters of text` : size(base64Bytes(r.blob));
      return `[resource <${r.uri}>${r.mimeType ? `, ${r.mimeType}` : ''}: ${what}]`;
    }
    default:
      return `[content of type "${(block as { type: string }).type}"]`;
  }
}

/**
 * The blocks' texts, one after another on their own lines; a result with no
 * content but structured content gives that as JSON.
 */
export function resultText(result: CallToolResult): string {
  const blocks = result.content ?? [];
  if (blocks.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return blocks.map(blockText).join('\n');
}
