/** A queue that runs the functions given to it one at a time, in order; a failure does not stop the queue. */
export function runSerially(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>) => {
    const result = tail.then(task, task);
    tail = result.catch(() => undefined);
    return result;
  };
}
