import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import type { ServerContext } from '../server-context';

/** Where the JSON-RPC endpoint of `skill` lives (undefined: the server's default agent at `/a2a`). */
export function a2aPath(skill: string | undefined): string {
  return skill === undefined ? '/a2a' : `/a2a/skills/${encodeURIComponent(skill)}`;
}

function skillEntry(name: string | undefined): AgentSkill {
  const description =
    name === undefined
      ? 'The server agent with its base tools (no skill).'
      : `The ${name} skill of this Bridle server (also its own agent at ${a2aPath(name)}).`;
  return {
    id: name ?? 'default',
    name: name ?? 'default',
    description,
    tags: ['bridle'],
    examples: [],
    inputModes: ['text/plain', 'application/json'],
    outputModes: ['text/plain'],
    securityRequirements: [],
  };
}

/**
 * The agent card of `skill` (undefined: the server's default agent, whose card lists every skill; each skill
 * is also an agent of its own at `/a2a/skills/<name>`, like the `/v1` face's `bridle:<skill>` models). JSON-RPC
 * over HTTP, A2A 1.0 and 0.3; streaming; no push notifications; bearer auth when the server has keys.
 */
export function a2aAgentCard(context: ServerContext, baseUrl: string, skill: string | undefined): AgentCard {
  const url = `${baseUrl}${a2aPath(skill)}`;
  const names = context.profiles.skillNames;
  const secured = context.auth.required;
  return {
    name: skill === undefined ? 'Bridle agent' : `Bridle agent: ${skill}`,
    description:
      skill === undefined
        ? `A Bridle agent server${secured ? ' (send Authorization: Bearer <key>)' : ''}. Skills: ${names.length ? names.join(', ') : 'none'}; each skill is also an agent of its own at /a2a/skills/<name> (card at /a2a/skills/<name>/agent-card.json).`
        : `The ${skill} skill of a Bridle agent server${secured ? ' (send Authorization: Bearer <key>)' : ''}.`,
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    // Left empty: the SDK's card shapes for schemes are its internal (protobuf) ones; the description says it.
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills:
      skill === undefined
        ? names.length
          ? names.map((name) => skillEntry(name))
          : [skillEntry(undefined)]
        : [skillEntry(skill)],
    signatures: [],
  };
}
