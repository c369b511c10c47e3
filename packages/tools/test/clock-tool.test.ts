import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { clockTool } from '../src/clock-tool';

const context = {
  signal: new AbortController().signal,
  callId: 'call-1',
  runId: 'run-1',
  idempotencyKey: 'run-1:call-1',
};
const fixed = (iso: string) => () => new Date(iso);

describe('clockTool', () => {
  it('defaults to UTC', async () => {
    const tool = clockTool({ now: fixed('2024-03-10T13:30:05.120Z') });
    expect(await tool.execute({}, context)).toEqual({
      iso: '2024-03-10T13:30:05.120+00:00',
      utc: '2024-03-10T13:30:05.120Z',
      timeZone: 'UTC',
      utcOffset: '+00:00',
      weekday: 'Sunday',
      unixMs: Date.parse('2024-03-10T13:30:05.120Z'),
    });
    expect(tool.name).toBe('clock');
    expect(tool.readOnly).toBe(true);
  });

  it('uses the zone from the arguments, across a DST change, with the canonical name', async () => {
    const before = clockTool({ now: fixed('2024-03-10T06:59:00Z') });
    const after = clockTool({ now: fixed('2024-03-10T07:01:00Z') });
    expect(await before.execute({ timeZone: 'america/new_york' }, context)).toMatchObject({
      iso: '2024-03-10T01:59:00.000-05:00',
      timeZone: 'America/New_York',
      utcOffset: '-05:00',
      weekday: 'Sunday',
    });
    expect(await after.execute({ timeZone: 'America/New_York' }, context)).toMatchObject({
      iso: '2024-03-10T03:01:00.000-04:00',
      utcOffset: '-04:00',
    });
  });

  it('handles half-hour offsets and date changes across midnight', async () => {
    const tool = clockTool({ timeZone: 'Asia/Kolkata', now: fixed('2023-12-31T20:00:00Z') });
    expect(await tool.execute({}, context)).toMatchObject({
      iso: '2024-01-01T01:30:00.000+05:30',
      timeZone: 'Asia/Kolkata',
      weekday: 'Monday',
    });
    expect(await tool.execute({ timeZone: 'Pacific/Kiritimati' }, context)).toMatchObject({
      iso: '2024-01-01T10:00:00.000+14:00',
    });
  });

  it('refuses an unknown zone at creation with a ConfigError', () => {
    expect(() => clockTool({ timeZone: 'Mars/Olympus_Mons' })).toThrow(ConfigError);
    expect(() => clockTool({ timeZone: 'Mars/Olympus_Mons' })).toThrow(
      'clockTool: timeZone "Mars/Olympus_Mons" is not a known IANA time zone; use a name like "UTC" or "Europe/Paris"',
    );
    expect(() => clockTool({ timeZone: '' })).toThrow(ConfigError);
    expect(() => clockTool({ timeZone: 42 as unknown as string })).toThrow(
      'timeZone number 42 is not a known IANA time zone',
    );
  });

  it('refuses hostile arguments with an Error that names the value', async () => {
    const tool = clockTool({ now: fixed('2024-01-01T00:00:00Z') });
    await expect(async () => tool.execute({ timeZone: 'Nowhere/Special' }, context)).rejects.toThrow(
      'clock: "Nowhere/Special" is not a known IANA time zone; use a name like "UTC", "Europe/Paris" or "America/New_York"',
    );
    await expect(async () => tool.execute({ timeZone: 'x'.repeat(10_000) }, context)).rejects.toThrow(
      'clock: a string of 10000 characters is not a known IANA time zone',
    );
    await expect(async () => tool.execute({ timeZone: 7 } as never, context)).rejects.toThrow(
      'clock: "timeZone" must be a string, got number 7',
    );
    await expect(async () => tool.execute({ zone: 'UTC' } as never, context)).rejects.toThrow(
      'clock: unknown argument "zone"; allowed: timeZone',
    );
    await expect(async () => tool.execute([] as never, context)).rejects.toThrow(
      'clock: arguments must be an object, got an array',
    );
  });
});

describe('clockTool zone names', () => {
  it('keeps aliases that ICU maps to legacy names and resolves GMT', async () => {
    const tool = clockTool({ now: fixed('2024-06-01T12:00:00Z') });
    expect(await tool.execute({ timeZone: 'Europe/Kyiv' }, context)).toMatchObject({
      timeZone: 'Europe/Kyiv',
      iso: '2024-06-01T15:00:00.000+03:00',
    });
    expect(await tool.execute({ timeZone: 'utc' }, context)).toMatchObject({ timeZone: 'UTC', utcOffset: '+00:00' });
    expect(await tool.execute({ timeZone: 'Etc/GMT+5' }, context)).toMatchObject({
      iso: '2024-06-01T07:00:00.000-05:00',
    });
  });

  it('refuses a clock that returns an invalid date', async () => {
    const tool = clockTool({ now: () => new Date(Number.NaN) });
    await expect(async () => tool.execute({}, context)).rejects.toThrow('clock: the clock returned an invalid date');
  });
});
