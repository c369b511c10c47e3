import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ServerError } from './server-error';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * True when `request` carries `Authorization: Bearer <token>` (compared as {@link bearerCheck} does).
 */
export function bearerMatches(token: string): (request: FastifyRequest) => boolean {
  const check = bearerCheck(token);
  return (request) => {
    try {
      check(request);
      return true;
    } catch {
      return false;
    }
  };
}

/**
 * Builds a check of `Authorization: Bearer <token>`. Both sides are hashed first so the comparison
 * takes the same time whatever the length or content of the presented token (`timingSafeEqual` needs
 * equal lengths, and comparing digests also hides the token's length). Throws `ServerError('unauthorized')`.
 */
export function bearerCheck(token: string): (request: FastifyRequest) => void {
  const expected = digest(token);
  return (request) => {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
    const presented = digest(match ? (match[1] as string) : '');
    if (!match || !timingSafeEqual(presented, expected)) {
      throw new ServerError(
        'unauthorized',
        match
          ? 'The bearer token is not valid.'
          : 'This server needs an API token: send the header "Authorization: Bearer <BRIDLE_API_TOKEN>".',
      );
    }
  };
}
