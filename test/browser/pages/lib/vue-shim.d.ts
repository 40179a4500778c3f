// The pages' single-file components, compiled by test/browser/vue-sfc.ts.
declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent<Record<string, unknown>>;
  export default component;
}
