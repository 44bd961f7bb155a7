// A vitest sequencer that starts the named files first, in the order named: files that spend a
// minute or more waiting on the wall clock (a schedule's next minute, a tool call outlasting a CLI's
// own limit). Without timings from an earlier run (a fresh clone in CI) vitest starts the largest
// files first, and these came last, each a minute alone at the end of the run.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export function longFirst(names: readonly string[]): typeof BaseSequencer {
  return class LongFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const rank = (f: TestSpecification) => {
        const i = names.findIndex((name) => f.moduleId.endsWith(`/${name}.test.ts`));
        return i < 0 ? names.length : i;
      };
      // Array.prototype.sort is stable: the rest keep vitest's own order.
      return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
    }
  };
}
