vcl 4.1;

# The service behind Varnish (docs/operations.md, "Behind a CDN"). Set the backend to the gateway;
# change nothing else without reading that section:
# - a keyed request (X-API-Key), the data and key endpoints, /metrics, /recover and every write are passed to
#   the gateway untouched, with their conditional headers: the gateway answers a revalidation with
#   a 304 it does not count, and counts everything else itself. Nothing keyed is ever stored.
# - errors and anything private or no-store are never stored.
# - the pages, the scripts, the stylesheet and the OpenAPI document are public: stored for the
#   lifetime the gateway gives them (content-addressed files for a year, the rest
#   PUBLIC_CACHE_SECONDS, 5 minutes by default), then revalidated.
# - brotli reaches the clients that accept it (Varnish itself only knows gzip).

backend gateway {
    .host = "127.0.0.1";
    .port = "8080";
}

sub vcl_recv {
    # One encoding a client takes, best first: the stored variants are these three at most.
    if (req.http.Accept-Encoding ~ "(^|[ ,])br([ ,;]|$)" && req.http.Accept-Encoding !~ "br;\s*q=0(\.0*)?([ ,]|$)") {
        set req.http.Accept-Encoding = "br";
    } elsif (req.http.Accept-Encoding ~ "gzip" && req.http.Accept-Encoding !~ "gzip;\s*q=0(\.0*)?([ ,]|$)") {
        set req.http.Accept-Encoding = "gzip";
    } else {
        unset req.http.Accept-Encoding;
    }
    set req.http.X-Wanted-Encoding = req.http.Accept-Encoding;

    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    # Keys and data belong to one client: never looked up, never stored, conditionals kept. So is
    # the recovery page, whose link carries a single-use token.
    if (req.http.X-API-Key || req.url ~ "^/api/(grains|changelog|register|keys)" || req.url ~ "^/(metrics|recover)") {
        return (pass);
    }
    unset req.http.Cookie;
    unset req.http.Authorization;
    return (hash);
}

sub vcl_backend_fetch {
    # On a miss Varnish asks for gzip only; ask for what the client takes.
    if (bereq.http.X-Wanted-Encoding) {
        set bereq.http.Accept-Encoding = bereq.http.X-Wanted-Encoding;
    } else {
        unset bereq.http.Accept-Encoding;
    }
    unset bereq.http.X-Wanted-Encoding;
}

sub vcl_backend_response {
    # The gateway's bytes are final: never decompressed or compressed again here.
    set beresp.do_gzip = false;
    set beresp.do_gunzip = false;
    if (beresp.status >= 400 || beresp.http.Cache-Control ~ "(private|no-store)" || !beresp.http.Cache-Control) {
        set beresp.uncacheable = true;
        set beresp.ttl = 0s;
        return (deliver);
    }
    # The lifetime is the gateway's (s-maxage): once it ends, the next request waits for the
    # gateway, so a new build is served within the lifetime the gateway states. The object is kept
    # a while longer, so that asking again is a conditional request the gateway answers with a 304.
    set beresp.grace = 0s;
    set beresp.keep = 1h;
}

sub vcl_deliver {
    unset resp.http.X-Wanted-Encoding;
}
