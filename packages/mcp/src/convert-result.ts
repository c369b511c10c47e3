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

function sameJson(textPart: string, structured: string): boolean {
  try {
    return JSON.stringify(JSON.parse(textPart)) === structured;
  } catch {
    return false;
  }
}

/**
 * The text the model sees for an MCP tool result: text parts joined with newlines, other parts described
 * (`[image image/png, 12 KB]`), and `structuredContent` as JSON (a text part that only repeats it is
 * dropped, as servers send one for older clients). Never throws.
 */
export function convertResult(result: McpCallResult): string {
  const parts = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  let structured: string | undefined;
  if (result.structuredContent !== undefined) {
    try {
      structured = JSON.stringify(result.structuredContent);
    } catch {
      structured = '[structured content that is not JSON]';
    }
  }
  const lines: string[] = [];
  for (const part of parts) {
    const line = describePart(part);
    const isText = typeof part === 'object' && part !== null && (part as Part).type === 'text';
    if (isText && structured !== undefined && sameJson(line, structured)) continue;
    lines.push(line);
  }
  if (structured !== undefined) lines.push(structured);
  return lines.join('\n');
}
