import { base64Bytes, describeBytes } from './describe-bytes';

/** The parts of an MCP `tools/call` result Bridle reads (any SDK line, any protocol version). */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}

type Part = Record<string, unknown>;

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function describeResource(resource: Part): string {
  const uri = text(resource.uri) ?? 'unknown uri';
  const mime = text(resource.mimeType);
  const body = text(resource.text);
  const blob = text(resource.blob);
  const size = body !== undefined ? Buffer.byteLength(body) : blob !== undefined ? base64Bytes(blob) : undefined;
  const details = [mime, size === undefined ? undefined : describeBytes(size)].filter(Boolean).join(', ');
  return `[resource ${uri}${details ? ` ${details}` : ''}]`;
}

/** One content part: text as it is, anything else described in one bracketed line. */
function describePart(value: unknown): string {
  if (typeof value !== 'object' || value === null) return '[unreadable part]';
  const part = value as Part;
  switch (part.type) {
    case 'text':
      return text(part.text) ?? '';
    case 'image':
    case 'audio': {
      const data = text(part.data) ?? '';
      return `[${part.type} ${text(part.mimeType) ?? 'unknown type'}, ${describeBytes(base64Bytes(data))}]`;
    }
    case 'resource_link': {
      const name = text(part.name);
      const mime = text(part.mimeType);
      const details = [name, mime].filter(Boolean).join(', ');
      return `[resource link ${text(part.uri) ?? 'unknown uri'}${details ? ` (${details})` : ''}]`;
    }
    case 'resource':
      return typeof part.resource === 'object' && part.resource !== null
        ? describeResource(part.resource as Part)
        : '[resource]';
    default:
      return `[${typeof part.type === 'string' ? part.type : 'unknown'} part]`;
  }
}

/** True when `text` says `value`: the same string, or JSON of the same value (any formatting). */
function says(text: string, value: unknown): boolean {
  if (typeof value === 'string' && text.trim() === value.trim()) return true;
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

/**
 * True when the text parts already carry `structured`: one of them is it as JSON, or (FastMCP, which
 * wraps a return value that is not an object as `{ "result": value }`) they say its `result`, one text
 * part for the value or one per item of a list.
 */
function carriedByText(structured: unknown, texts: readonly string[]): boolean {
  if (texts.some((text) => says(text, structured))) return true;
  if (typeof structured !== 'object' || structured === null || Array.isArray(structured)) return false;
  const keys = Object.keys(structured);
  if (keys.length !== 1 || keys[0] !== 'result') return false;
  const value = (structured as { result: unknown }).result;
  if (texts.length === 1 && says(texts[0] as string, value)) return true;
  return (
    Array.isArray(value) &&
    value.length === texts.length &&
    value.every((item, index) => says(texts[index] as string, item))
  );
}

/**
 * The text the model sees for an MCP tool result, each piece of information once: text parts joined
 * with newlines, other parts described (`[image image/png, 12 KB]`), and `structuredContent` as JSON
 * only when the text parts do not already carry it (the MCP spec asks servers to mirror structured
 * content as text for older clients: a text part that is its JSON, or FastMCP's text beside
 * `{ "result": ... }`). Never throws.
 */
export function convertResult(result: McpCallResult): string {
  const parts = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  const lines = parts.map(describePart);
  const texts = parts.flatMap((part, index) =>
    typeof part === 'object' && part !== null && (part as Part).type === 'text' ? [lines[index] as string] : [],
  );
  if (result.structuredContent === undefined) return lines.join('\n');
  let structured: string;
  try {
    if (carriedByText(result.structuredContent, texts)) return lines.join('\n');
    structured = JSON.stringify(result.structuredContent);
  } catch {
    structured = '[structured content that is not JSON]';
  }
  return [...lines, structured].join('\n');
}
