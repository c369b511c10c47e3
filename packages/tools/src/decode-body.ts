import { TextDecoder } from 'node:util';

/** Content types whose bodies are not text: reported by size, never decoded. */
const BINARY_TYPES =
  /^(image|audio|video|font)\/|^application\/(octet-stream|pdf|zip|gzip|x-tar|x-7z-compressed|wasm|vnd\.ms-|vnd\.openxmlformats)/;

/** True when a `Content-Type` names binary content (images, archives, PDF, ...). */
export function isBinaryContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && BINARY_TYPES.test(contentType.trim().toLowerCase());
}

/**
 * Decodes a body as text with the charset of the `Content-Type` (default UTF-8; an unknown charset falls
 * back to UTF-8). A byte order mark is dropped. When the body was truncated, a character cut in half at the
 * end is dropped rather than shown as a replacement character.
 */
export function decodeBody(body: Uint8Array, contentType: string | undefined, truncated: boolean): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1];
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset ?? 'utf-8');
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(body, { stream: truncated });
}
