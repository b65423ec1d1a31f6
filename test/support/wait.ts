/** Waiting in real time for something the system under test does by itself. */

/** Resolves once `pred` holds (checked every 10 ms), or rejects after `ms`. */
export async function waitFor(pred: () => boolean, ms = 5000, what = 'a condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
