import { errorMessage } from '@bridle/protocol/internal';
import { compileSchema } from '@bridle/registry';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';

/** Structured content may be bigger than tool arguments (a server's message is bounded by bytes anyway). */
const MAX_OUTPUT_NODES = 1_000_000;

/**
 * The MCP SDK's output-schema validator, replaced: a server's `outputSchema` is untrusted, so it is
 * compiled by Bridle's registry with `untrusted: true` (patterns in linear time, see @bridle/registry)
 * instead of the SDK's default Ajv with `RegExp`. A schema that does not compile throws here; the SDK
 * then fails calls of that tool, and {@link ServerConnection} skips the tool at listing.
 */
export const untrustedValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const check = compileSchema(schema as Record<string, unknown>, { untrusted: true, maxNodes: MAX_OUTPUT_NODES });
    return (input) => {
      let errors: string[];
      try {
        errors = check(input);
      } catch (error) {
        errors = [errorMessage(error)];
      }
      return errors.length === 0
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: errors.join('; ') };
    };
  },
};
