// Where this program's own files are: the root of src/ (the tests run the sources) or of dist/ (the
// built program). The files that find a sibling by a URL relative to their own module (package.json,
// the bin, the launcher's script) ask here instead, because in the bundled program
// (scripts/bundle-cli.mjs) a module's code lives in a chunk in dist/bundle/, not where tsc put it.

/** Pure: the root of src/ or dist/, from the folder of the module (or chunk) this code runs in. */
export function ownRoot(here: URL): URL {
  return here.href.endsWith('/dist/bundle/') ? new URL('../', here) : here;
}

const root = ownRoot(new URL('./', import.meta.url));

/** The URL of `path`, relative to the root of src/ or dist/. */
export function ownFile(path: string): URL {
  return new URL(path, root);
}
