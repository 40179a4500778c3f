// Source maps ship for the ES module builds only (docs/size.md, "Package contents"): the files
// bundlers, dev tools and Node's ESM loader read. The CommonJS maps doubled what the maps cost
// for the few who step through require()d code, which is readable unminified as it is. tsup
// makes maps per configuration, not per format: this removes the CommonJS ones after the build,
// with the comment that points at each.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dist = new URL('../dist/', import.meta.url).pathname;
let removed = 0;
for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
  const path = join(dist, file);
  if (file.endsWith('.cjs.map')) {
    rmSync(path);
    removed++;
  } else if (file.endsWith('.cjs')) {
    // tsup leaves two such comments at the end of a split CommonJS file: all of them go.
    writeFileSync(path, readFileSync(path, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\.cjs\.map(?=\s*(\n|$))/g, ''));
  }
}
console.log(`esm-maps-only: removed ${removed} CommonJS source maps`);
