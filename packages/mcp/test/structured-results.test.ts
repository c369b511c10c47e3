import { runAgent } from '@bridle/core';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { connectMcp } from '../src/index';
import { fixture } from './helpers';

const LYON = 'Forecast for Lyon: sunny, 21°C';
const OSLO = 'Forecast for Oslo: sunny, 21°C';

/** What the model reads, in its next request, for each call of one step against a forecast server in `mode`. */
async function whatTheModelReads(mode: 'both' | 'text' | 'structured'): Promise<string[]> {
  const connection = await connectMcp({
    name: 'forecast',
    command: process.execPath,
    args: [fixture('forecast-server.mjs'), '--mode', mode],
  });
  try {
    const model = scriptedModel([
      {
        content: '',
        toolCalls: [
          { id: 'call_1', name: 'forecast__forecast', arguments: { city: 'Lyon' } },
          { id: 'call_2', name: 'forecast__forecasts', arguments: { cities: ['Lyon', 'Oslo'] } },
          { id: 'call_3', name: 'forecast__temperature', arguments: { city: 'Lyon' } },
          { id: 'call_4', name: 'forecast__weather', arguments: { city: 'Lyon' } },
        ],
      },
      { content: 'Sunny.' },
    ]);
    const result = await runAgent({ model, tools: await connection.tools(), prompt: 'Weather in Lyon?' });
    expect(result.status).toBe('completed');
    return (model.requests[1]?.messages ?? []).flatMap((message) =>
      message.role === 'tool' ? [message.content as string] : [],
    );
  } finally {
    await connection.close();
  }
}

describe('a tool result reaches the model once', () => {
  it('FastMCP: text parts and structured content that mirrors them', async () => {
    expect(await whatTheModelReads('both')).toEqual([
      LYON,
      `${LYON}\n${OSLO}`,
      '21',
      '{\n  "city": "Lyon",\n  "celsius": 21\n}',
    ]);
  });

  it('text parts only', async () => {
    expect(await whatTheModelReads('text')).toEqual([
      LYON,
      `${LYON}\n${OSLO}`,
      '21',
      '{\n  "city": "Lyon",\n  "celsius": 21\n}',
    ]);
  });

  it('structured content only', async () => {
    expect(await whatTheModelReads('structured')).toEqual([
      `{"result":"${LYON}"}`,
      `{"result":["${LYON}","${OSLO}"]}`,
      '{"result":21}',
      '{"city":"Lyon","celsius":21}',
    ]);
  });
});
