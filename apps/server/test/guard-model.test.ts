import { ProviderError } from '@bridle/protocol';
import { faultyModel, modelRequest, rejection, scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { guardModel, UNEXPECTED_MODEL_ERROR } from '../src/guard-model';

describe('guardModel', () => {
  it('hides an unexpected error from clients and logs it; Bridle errors pass unchanged', async () => {
    const logged: unknown[] = [];
    const secret = new Error("ENOENT: no such file '/srv/secret/key'");
    const provider = new ProviderError({ code: 'rate_limited', message: 'slow down', provider: 'p' });
    const model = guardModel(scriptedModel([secret, provider]), (error) => logged.push(error));
    const request = () => modelRequest([{ role: 'user', content: 'hi' }]);
    expect(((await rejection(model.generate(request()))) as Error).message).toBe(UNEXPECTED_MODEL_ERROR);
    expect(await rejection(model.generate(request()))).toBe(provider);
    expect(logged).toEqual([secret]);
  });

  it('passes the reason of a cancelled call on without logging it', async () => {
    const logged: unknown[] = [];
    const model = guardModel(faultyModel(scriptedModel([]), { 0: { type: 'hang' } }), (error) => logged.push(error));
    const controller = new AbortController();
    const pending = model.generate(modelRequest([{ role: 'user', content: 'hi' }], { signal: controller.signal }));
    const reason = new Error('the client disconnected');
    controller.abort(reason);
    expect(await rejection(pending)).toBe(reason);
    expect(logged).toEqual([]);
  });
});
