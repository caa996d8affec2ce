/* http-fastpath: typings for the package. The addon's own typings are
   generated from the Rust exports by `npm run build` (lib/native/binding.d.ts);
   test/typings.test.js checks both files against the real exports. */

import type * as Binding from './lib/native/binding';

/** The Rust addon's exports. */
export type NativeAddon = typeof Binding;

export interface NativeStatus {
  /** whether the addon is loaded (asking for status() loads it) */
  loaded: boolean;
  /** napi-rs platform name, e.g. 'linux-x64-gnu' */
  platform: string;
  /** where the binary came from */
  source: 'local build' | 'platform package' | 'HTTP_FASTPATH_ADDON' | null;
  /** the .node file, or null when none was found */
  file: string | null;
  /** why the addon is not loaded, or null */
  reason: string | null;
  /** each native feature: on only when the addon loaded (sendfile: and on Linux with libuv exported) */
  features: { messageBuilder: boolean; headerStore: boolean; validators: boolean; sendfile: boolean };
}

/** body-parser's type check and raw-body's UTF-8 decoder answered for less (HTTP_FASTPATH_EXPRESS=0 leaves them stock) */
export interface BodyParsersStatus {
  /** type-is copies given to body-parser's files: known versions adopted, others left as they are */
  typeIs: { adopted: number; unknownVersion: number };
  /** iconv-lite copies given to raw-body: adopted for known raw-body versions, others left as they are */
  rawBody: { adopted: number; unknownVersion: number };
  /** bodies whose first chunk was whole, valid UTF-8 and decoded by toString */
  decodedByToString: number;
  /** bodies handed to iconv's own decoder at a chunk that was not */
  decodedByIconv: number;
}

export interface KoaStatus {
  /** Koa's context delegations (delegates as koa/lib/context.js requires it) */
  delegations: {
    /** delegates copies recognised (1.0.0) and given a function per name */
    adopted: number;
    /** delegates copies of another source, left as they are */
    unknownVersion: number;
    /** context properties that got the package's functions */
    specialised: number;
  };
  /** mime-types as Koa 3's lib/response.js requires it: contentType kept per string for recognised versions */
  contentType: { adopted: number; unknownVersion: number };
}

export interface ExpressBindingStatus {
  /** servers whose requests were born with their Express app's prototypes */
  bound: number;
  /** of those, the ones still alive */
  live: number;
  /** servers left stock, by reason: customClasses, listenerBeforeApp, laterListeners (Express 4 with listeners after it), foreignListener, notExpress, forwarderNotExpress, ... */
  stepAside: Record<string, number>;
  /**
   * bound servers by shape: the app as the request listener ('app'), a listener that only
   * forwards to one app ('forwarder', bound once its first request showed the app), the app
   * behind socket.io's / engine.io's listeners ('engineIo', their own paths built stock), and
   * of these, those that had 'upgrade'/'connect' listeners (a WebSocket server) when bound, and
   * those whose app was followed by other 'request' listeners (stoppable, terminus, Apollo's drain plugin)
   */
  shapes: { app: number; forwarder: number; engineIo: number; withUpgrades: number; withLaterListeners: number };
  /** forwarding servers still waiting for a request that shows which app they forward to */
  forwardersLearning: number;
  /**
   * engine.io and socket.io as they loaded: copies whose listener-installing method is known
   * (engine.io 6.3+ `attach`, socket.io 4.7+ `attachServe`) and copies left stock; listeners
   * they installed in front of exactly one other ('attached') or not ('notForwardingOne')
   */
  gates: {
    engineIo: { adopted: number; unknownVersion: number };
    socketIo: { adopted: number; unknownVersion: number };
    attached: number;
    notForwardingOne: number;
  };
  /** the bound objects whose listener table is built outside V8's pretenured literal sites: 'request' (every line), 'response' (Node 26) */
  listenerTables: ('request' | 'response')[];
  /** Express's response helpers computed once (docs/express.md); present once the app loaded Express */
  helpers?: ExpressHelpersStatus;
}

export interface ExpressHelpersStatus {
  /** each copy of Express recognised as it loaded, and what is accelerated in it: 'setCharset', 'etag', 'contentType', 'router', 'appHandle' (Express 4: 'set') */
  copies: { version: string; dir: string; accelerated: string[] }[];
  /**
   * copies left stock ('unrecognised version', 'not express', 'loaded before http-fastpath'), and,
   * with `helper`, each helper a recognised copy leaves stock ('unknownSource': a source other
   * than those read; 'noCryptoHash': etag on Node 20.0-20.11)
   */
  stock: { version: string; dir: string; helper?: 'setCharset' | 'etag' | 'contentType' | 'set' | 'router' | 'appHandle'; reason: string }[];
}

export interface FileResponseStatus {
  /** fs.ReadStream pipes into responses that were sent with sendfile(2) */
  native: number;
  /** of those, the ones that had to wait for a full socket to drain */
  waited: number;
  /** of the native ones, those that could not wait (no descriptor to spare under RLIMIT_NOFILE, no memory) and were finished by Node's own reads and writes, by errno: EMFILE, ENOMEM, ... */
  handedBack: Record<string, number>;
  /** pipes into responses left to Node, by reason: chunked, noBody, responseClosed, notOnSocket, tls, otherConsumer, socketError, ... */
  stock: Record<string, number>;
}

export interface ZlibJobStatus {
  /** where small codec jobs run now: 'inline' with one CPU, with every CPU busy, or with HTTP_FASTPATH_ZLIB=1; else 'pool' */
  mode: 'inline' | 'pool';
  /** why: 'one CPU', 'HTTP_FASTPATH_ZLIB=1', 'HTTP_FASTPATH_ZLIB=0', 'spare cores: ...', 'cores busy: ...' */
  reason: string;
  /** the CPUs the process may use (affinity and cgroup quota), when the setting did not decide */
  cpus: number | null;
  /** with more than one CPU: times the mode followed the measured idle time (docs/compression.md) */
  switches?: number;
  /** with more than one CPU: the idle CPU measured last, in cores (null before the first second) */
  idleCores?: number | null;
  /** codec jobs (zlib, brotli, zstd) run on the loop thread, completions delivered in a later poll phase */
  inline: number;
  /** jobs left to the libuv threadpool, by reason: large, noNative, unknownHandle, poolMode (measured idle time after a switch back) */
  pooled: Record<string, number>;
  /** times the free malloc memory was given back (malloc_trim, at most once a second while jobs run inline) */
  trims: number;
}

export interface AllocatorStatus {
  /** whether glibc's mmap/trim thresholds were set (opt-in: HTTP_FASTPATH_MALLOC=1) */
  applied: boolean;
  /** why not: off, the operator's MALLOC_* or GLIBC_TUNABLES, no native binary, not glibc, no server listened yet */
  reason: string | null;
  mmapThreshold: number | null;
  trimThreshold: number | null;
}

export interface Http2Status {
  /** trailers set on a compat response after end() had sent it complete (not sent; warned once) */
  lateTrailers: number;
  /** why compat responses are left stock ('HTTP_FASTPATH_HTTP2=0', unrecognised internals), or null */
  stockReason: string | null;
}

/** One part of the response path: on, or left stock and why. */
export interface ResponsePartStatus {
  /** patched in this process (a verified source and every probe matched, and the package is installed) */
  on: boolean;
  /** why it stays stock ('unverified source (…: sha1 …)', a probe that did not match), or null */
  reason: string | null;
}

export interface FastpathStatus {
  /** process.version */
  node: string;
  major: number;
  /** whether this Node major is one of 20, 22, 24, 26 */
  supported: boolean;
  /** whether Node's http module is currently patched (the JS fast paths) */
  active: boolean;
  /** true until the app loads http/https/http2 (patching waits for it) */
  waitingForHttp: boolean;
  /** what activated the patches: 'require', 'first request', 'already loaded', 'install()' */
  activatedBy: string | null;
  /** 'verify' when HTTP_FASTPATH=verify, else 'fast' */
  mode: 'fast' | 'verify';
  /** in verify mode: heads checked and distinct differences reported */
  verified?: { checked: number; differences: number };
  /** why the package is off as a whole (HTTP_FASTPATH=0, unsupported Node, unreadable internals), or null */
  disabledReason: string | null;
  /**
   * Per part of the response path, as read from the running Node
   * (docs/node-versions.md): `head` (the head renderer), `end` (one socket
   * write per response), `headers` (the header store). null until the app
   * loads http, or when the package does not run at all.
   */
  parts: { head: ResponsePartStatus; end: ResponsePartStatus; headers: ResponsePartStatus } | null;
  /** the replaced methods, as 'Owner.prototype.name' */
  patched: string[];
  /** bodyParsers: absent until a body-parser or raw-body loads; koa: until Koa loads */
  frameworks: { express?: ExpressBindingStatus; bodyParsers?: BodyParsersStatus; koa?: KoaStatus };
  /** the native file path (absent when off: HTTP_FASTPATH_SENDFILE=0, not Linux, not active) */
  files?: FileResponseStatus;
  /** small codec jobs on the loop thread (with one CPU or every CPU busy; HTTP_FASTPATH_ZLIB=0|1; absent until an HTTP app loads zlib) */
  zlib?: ZlibJobStatus;
  allocator: AllocatorStatus;
  /** HTTP/2 compat responses (HTTP_FASTPATH_HTTP2=0 leaves http2 stock) */
  http2: Http2Status;
  native: NativeStatus;
  /** with HTTP_FASTPATH_STATS=1: fast-path hits and fallback reasons */
  stats?: Record<string, number>;
}

/** Patches now (normally done when the app loads http). */
export declare function install(): boolean;
/** Restores every patched method and every bound server. */
export declare function uninstall(): boolean;
export declare function status(): FastpathStatus;
export declare function resetStats(): void;
/** Where the addon would be loaded from, without loading it. */
export declare function locateNative(): { platform: string; source: NativeStatus['source']; file: string | null };
/** The addon, loaded on first access, or null without a working binary. */
export declare const native: NativeAddon | null;
