/* http-fastpath: typings for the shim and the native addon. */

export interface FastpathStatus {
  /** process.version */
  node: string;
  major: number;
  /** whether this Node major is one of 20, 22, 24, 26 */
  supported: boolean;
  /** whether the Rust addon loaded */
  nativeLoaded: boolean;
  /** whether Node's http module is currently patched */
  active: boolean;
  /** 'verify' when HTTP_FASTPATH=verify, else 'fast' */
  mode: 'fast' | 'verify';
  /** in verify mode: heads checked and distinct differences reported */
  verified?: { checked: number; differences: number };
  /** why the fast path is off (HTTP_FASTPATH=0, unsupported Node, addon failure), or null */
  disabledReason: string | null;
  /** the replaced methods, as 'Owner.prototype.name' */
  patched: string[];
  /** with HTTP_FASTPATH_STATS=1: fast-path hits and fallback reasons */
  stats?: Record<string, number>;
}

export declare function install(): boolean;
export declare function uninstall(): boolean;
export declare function status(): FastpathStatus;
export declare function resetStats(): void;

export declare class HeaderStore {
  constructor();
  set(name: string, value: string): void;
  get(name: string): string | null;
  has(name: string): boolean;
  remove(name: string): boolean;
  readonly size: number;
  render(firstLine: string, body?: string | Uint8Array | null): Buffer;
  render(firstLine: string, body: string | Uint8Array | null | undefined, out: Uint8Array): number;
}

export interface NativeAddon {
  /** first line (with CRLF) + `name: value` pairs + blank line [+ body], into one Buffer or into `out` */
  buildHttpMessage(firstLine: string, headers: string[], body?: string | Uint8Array | null): Buffer;
  buildHttpMessage(firstLine: string, headers: string[], body: string | Uint8Array | null | undefined, out: Uint8Array): number;
  HeaderStore: typeof HeaderStore;
  isHttpToken(name: string): boolean;
  hasInvalidHeaderChar(value: string, lenient?: boolean): boolean;
}

/** the loaded addon, or null */
export declare const native: NativeAddon | null;
