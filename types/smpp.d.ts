// Local types for the parts of smpp@0.5.1 (CommonJS, no bundled types) that Yona's carriers use.
declare module 'smpp' {
  import { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';
  import type { ConnectionOptions } from 'node:tls';

  namespace smpp {
    /** Decoded short_message / message_payload as produced by the package's message filter. */
    interface DecodedMessage {
      message: string | Buffer;
      udh?: Buffer[];
    }

    /** Params and TLVs a PDU may carry, as plain properties named as in the SMPP spec. */
    interface PduBody {
      system_id?: string;
      password?: string;
      system_type?: string;
      interface_version?: number;
      addr_ton?: number;
      addr_npi?: number;
      address_range?: string;
      service_type?: string;
      source_addr_ton?: number;
      source_addr_npi?: number;
      source_addr?: string;
      dest_addr_ton?: number;
      dest_addr_npi?: number;
      destination_addr?: string;
      esm_class?: number;
      protocol_id?: number;
      priority_flag?: number;
      registered_delivery?: number;
      data_coding?: number | null;
      sm_default_msg_id?: number;
      short_message?: Buffer | string | DecodedMessage;
      message_payload?: Buffer | string | DecodedMessage;
      message_id?: string;
      receipted_message_id?: string;
      message_state?: number;
      network_error_code?: Buffer;
      [key: string]: unknown;
    }

    /** Options for building a PDU: its body plus header fields. */
    interface PduFields extends PduBody {
      command_status?: number;
      sequence_number?: number;
    }

    interface PDU extends PduBody {}

    /** One SMPP PDU; responses have the high bit of command_id set. */
    class PDU {
      constructor(command: string, options?: PduFields);
      constructor(buffer: Buffer);
      command: string;
      command_id: number;
      command_length: number;
      command_status: number;
      sequence_number: number;
      [key: string]: unknown;
      isResponse(): boolean;
      response(options?: PduFields): PDU;
      toBuffer(): Buffer;
      static maxLength: number;
    }

    interface SessionOptions {
      host?: string;
      port?: number;
      tls?: boolean;
      socket?: Socket;
      auto_enquire_link_period?: number;
      [key: string]: unknown;
    }

    type ConnectOptions = SessionOptions & Omit<ConnectionOptions, 'socket'>;
    type PduCallback = (pdu: PDU) => void;

    /** A client or server-side connection; emits 'pdu', each command name, 'close', 'error'. */
    class Session extends EventEmitter {
      constructor(options: SessionOptions);
      socket: Socket;
      sequence: number;
      server?: Server;
      send(pdu: PDU, responseCallback?: PduCallback, sendCallback?: PduCallback): boolean;
      close(callback?: () => void): void;
      destroy(callback?: () => void): void;
      pause(): void;
      resume(): void;
      bind_transceiver(options: PduFields, cb?: PduCallback): boolean;
      bind_transmitter(options: PduFields, cb?: PduCallback): boolean;
      bind_receiver(options: PduFields, cb?: PduCallback): boolean;
      submit_sm(options: PduFields, cb?: PduCallback): boolean;
      deliver_sm(options: PduFields, cb?: PduCallback): boolean;
      enquire_link(options?: PduFields | PduCallback, cb?: PduCallback): boolean;
      unbind(options?: PduFields | PduCallback, cb?: PduCallback): boolean;
    }

    /** net.Server that wraps each accepted socket in a Session ('session' event). */
    class Server extends NetServer {
      sessions: Session[];
    }

    interface MessageFilter {
      encode(this: PduFields, value: unknown): unknown;
      decode(this: PduFields, value: unknown, skipUdh?: boolean): unknown;
    }

    function connect(options: ConnectOptions, listener?: () => void): Session;
    function connect(url: string, listener?: () => void): Session;
    function createServer(options?: Record<string, unknown>, listener?: (session: Session) => void): Server;
    function createServer(listener: (session: Session) => void): Server;

    const errors: Record<string, number>;
    const filters: { message: MessageFilter; [name: string]: MessageFilter };
    const commands: Record<string, { id: number; params?: Record<string, unknown> }>;
    const consts: {
      ESM_CLASS: Record<string, number>;
      MESSAGE_STATE: Record<string, number>;
      REGISTERED_DELIVERY: Record<string, number>;
      ENCODING: Record<string, number>;
      TON: Record<string, number>;
      NPI: Record<string, number>;
    };
  }

  export = smpp;
}
