import type { NextConfig } from 'next';

// The suite builds a copy of this app inside the repository, whose node_modules may be a link
// to another checkout's (a git worktree): Turbopack must see the folder that holds both.
const config: NextConfig = { turbopack: { root: process.env.FLAGPLANE_TURBOPACK_ROOT } };

export default config;
