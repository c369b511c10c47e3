import { ConfigError, describeValue, type Tool, type ToolDefinition } from '@bridle/protocol';
import { resolveLimits } from './limits';
import { parseArguments } from './parse-arguments';
import { type ResolvedTool, resolveTool } from './resolve-tool';
import type { ValidationResult } from './standard-schema';
import { parseStandard } from './validate';

interface Entry extends ResolvedTool {
  tool: Tool;
}

/**
 * The tools of a run, checked once at construction. Names match `^[a-zA-Z][a-zA-Z0-9_-]{0,63}$` and
 * are unique; every schema is valid draft 2020-12 with `type: "object"` (or a Standard Schema) and is
 * compiled here, once. Takes plain `Tool` objects as well as {@link defineTool} results.
 * Throws `ConfigError` naming the tool and the fix.
 *
 * @example
 * const registry = new ToolRegistry([weather]);
 * const checked = registry.validate('get_weather', { city: 'Oslo' });
 * if (checked.ok) await registry.get('get_weather')!.execute(checked.value, context);
 */
export class ToolRegistry {
  readonly #entries = new Map<string, Entry>();
  readonly #definitions: readonly ToolDefinition[];
  readonly #tools: readonly Tool[];
  readonly #limits = resolveLimits(undefined);

  constructor(tools: readonly Tool[]) {
    if (!Array.isArray(tools)) {
      throw new ConfigError(`ToolRegistry expects an array of tools, got ${describeValue(tools)}.`);
    }
    const indexes = new Map<string, number>();
    tools.forEach((tool, index) => {
      const resolved = resolveTool(tool, `tools[${index}]`);
      const name = resolved.definition.name;
      const first = indexes.get(name);
      if (first !== undefined) {
        throw new ConfigError(
          `Duplicate tool name "${name}" (tools[${first}] and tools[${index}]): tool names must be unique. Rename one of them.`,
        );
      }
      indexes.set(name, index);
      this.#entries.set(name, { ...resolved, tool });
    });
    this.#definitions = Object.freeze([...this.#entries.values()].map((entry) => entry.definition));
    this.#tools = Object.freeze([...tools]);
  }

  /** What the model sees: `{ name, description, parameters }` (JSON Schema) per tool, in order. Same frozen array every call. */
  definitions(): readonly ToolDefinition[] {
    return this.#definitions;
  }

  /** The tool object registered under `name`, as it was given. */
  get(name: string): Tool | undefined {
    return this.#entries.get(name)?.tool;
  }

  /** True when a tool of that name is registered. */
  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** Every registered tool, in registration order (a frozen array). */
  tools(): readonly Tool[] {
    return this.#tools;
  }

  /**
   * Validates a call's arguments. A string is parsed as JSON first (a provider passes the raw text when
   * it was not JSON; that gives an error line saying so). `value` is what `execute` should receive: the
   * arguments themselves for a JSON Schema tool (never mutated), the Standard Schema's parsed output
   * otherwise. Unknown tool: `Unknown tool: x. Available tools: a, b`. Never throws for any `args`;
   * throws `ConfigError` only for a tool whose Standard Schema is asynchronous (use {@link validateAsync}).
   */
  validate(name: string, args: unknown): ValidationResult {
    const result = this.#check(name, args);
    if (result instanceof Promise) {
      result.catch(() => undefined);
      throw new ConfigError(`Tool "${name}" validates asynchronously: call validateAsync(name, args) instead.`);
    }
    return result;
  }

  /** Like {@link validate}, and awaits Standard Schemas that validate asynchronously. Never rejects. */
  async validateAsync(name: string, args: unknown): Promise<ValidationResult> {
    return this.#check(name, args);
  }

  #check(name: string, args: unknown): ValidationResult | Promise<ValidationResult> {
    const entry = typeof name === 'string' ? this.#entries.get(name) : undefined;
    if (entry === undefined) {
      const shown = typeof name === 'string' ? name : `(a ${name === null ? 'null' : typeof name}, not a tool name)`;
      const available = this.#entries.size > 0 ? [...this.#entries.keys()].join(', ') : 'none';
      return { ok: false, errors: [`Unknown tool: ${shown}. Available tools: ${available}`] };
    }
    const parsed = parseArguments(args);
    if (!parsed.ok) return parsed;
    if (entry.standard !== undefined) return parseStandard(parsed.value, entry.standard, this.#limits);
    const errors = entry.compiled.check(parsed.value, this.#limits);
    return errors.length > 0 ? { ok: false, errors } : { ok: true, value: parsed.value };
  }
}
