// What never becomes a request (bad HTTP, a CONNECT) is answered on the socket itself (server.ts):
// the catalogue's error as bytes, with its own headers, and the connection closed.
import { JSON_CONTENT_TYPE } from '../build/site-format.ts';
import { errorBody, type HttpError } from './errors.ts';

/** An error answer written straight to a socket, for what never becomes a request (bad HTTP, CONNECT). */
export function rawErrorResponse(err: HttpError, statusText: string): string {
  const body = errorBody(err);
  const own = Object.entries(err.headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return (
    `HTTP/1.1 ${err.status} ${statusText}\r\nContent-Type: ${JSON_CONTENT_TYPE}\r\n${own.join('')}` +
    `Content-Length: ${body.length}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body.toString()}`
  );
}
