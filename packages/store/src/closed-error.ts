import { StoreError } from './store-error';

/** The error every method of a closed store rejects with. */
export function closedError(method: string, where: string): StoreError {
  return new StoreError('closed', `${method}: the store (${where}) is closed; open a new one with openStore()`);
}
