import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Plugin } from 'esbuild';
import { compileScript, parse } from 'vue/compiler-sfc';

/**
 * Vue single-file components for the pages, compiled as a Vue build tool compiles them:
 * `vue/compiler-sfc` turns `<script setup>` and the template into one module (the template
 * inlined as the setup's render function). Styles are not used by the pages.
 */
export const vueSfc: Plugin = {
  name: 'vue-sfc',
  setup(build) {
    build.onLoad({ filter: /\.vue$/ }, async ({ path }) => {
      const { descriptor, errors } = parse(await readFile(path, 'utf8'), { filename: path });
      if (errors.length) return { errors: errors.map((error) => ({ text: error.message })) };
      const id = createHash('sha256').update(path).digest('hex').slice(0, 8);
      const script = compileScript(descriptor, { id, inlineTemplate: true });
      return { contents: script.content, loader: 'ts', resolveDir: dirname(path) };
    });
  },
};
