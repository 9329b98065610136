/**
 * A data file among the Worker's static assets, read once per isolate: data too large to bundle
 * (the Worker's upload is kept under 260 KiB gzipped). A failed read is not cached, so the next
 * call tries again.
 */
export const staticData = <T>(path: string, parse: (res: Response) => Promise<T>) => {
  let loaded: Promise<T> | undefined;
  return (assets: Fetcher): Promise<T> =>
    (loaded ??= assets.fetch(new Request(`https://assets.local${path}`)).then(async (res) => {
      if (!res.ok) throw new Error(`${path} unavailable (${res.status})`);
      return parse(res);
    })).catch((error) => {
      loaded = undefined;
      throw error;
    });
};
