/** An engine was asked for, but the package that talks to it is not installed. */
export class MissingPackageError extends Error {
  override readonly name = 'MissingPackageError';
  readonly code = 'missing_package';
  constructor(
    readonly option: string,
    readonly packageName: string,
    options?: { cause?: unknown },
  ) {
    super(`${option} needs the ${packageName} package: npm install ${packageName}`, options);
  }
}

/** How a package is loaded; tests replace it to simulate a missing one. */
export type ModuleImporter = (name: string) => Promise<unknown>;

export const importModule: ModuleImporter = (name) => import(name);

function isNotFound(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const notFound = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
  // A package that is there but misses one of its own dependencies is another error.
  return notFound && typeof message === 'string' && message.includes(`'${name}'`);
}

/** Imports an optional peer dependency; a missing one is a {@link MissingPackageError} naming `option`. */
export async function loadOptionalPackage<T>(option: string, name: string, importer: ModuleImporter = importModule): Promise<T> {
  try {
    return (await importer(name)) as T;
  } catch (error) {
    if (isNotFound(error, name)) throw new MissingPackageError(option, name, { cause: error });
    throw error;
  }
}
