package dev.loopflow.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Reads the recorded replies of real servers ({@link Reply#recorded}) from the class path. */
final class RecordedReplies {

    private static final String ROOT = "/dev/loopflow/testkit/wire/";
    // Headers that describe the recorded connection, not the reply: the replaying server sets its own.
    private static final Set<String> CONNECTION_HEADERS =
            Set.of("content-length", "transfer-encoding", "connection", "keep-alive", "date");

    private RecordedReplies() {}

    static Reply.Recorded load(String name) {
        if (name == null || name.contains("..") || name.startsWith("/")) {
            throw new IllegalArgumentException("a recording is named by its path under " + ROOT + " but was " + name);
        }
        byte[] bytes;
        try (InputStream in = RecordedReplies.class.getResourceAsStream(ROOT + name + ".http")) {
            if (in == null) {
                throw new IllegalArgumentException("no recorded reply " + ROOT + name + ".http on the class path");
            }
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return parse(name, bytes);
    }

    /** A {@code curl -i} transcript: status line, headers, empty line, body (an interim 1xx block is skipped). */
    static Reply.Recorded parse(String name, byte[] bytes) {
        int at = 0;
        while (true) {
            int end = headEnd(bytes, at);
            if (end < 0) {
                throw new IllegalArgumentException("recorded reply " + name + " has no empty line after its headers");
            }
            String head = new String(bytes, at, end - at, StandardCharsets.ISO_8859_1);
            String[] lines = head.split("\r?\n");
            String[] status = lines[0].split(" ", 3);
            if (status.length < 2 || !status[0].startsWith("HTTP/")) {
                throw new IllegalArgumentException("recorded reply " + name + " does not start with a status line: "
                        + lines[0]);
            }
            int code = Integer.parseInt(status[1]);
            int bodyStart = end + (bytes[end] == '\r' ? 4 : 2);
            if (code >= 100 && code < 200) {
                at = bodyStart;
                continue;
            }
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon <= 0) {
                    continue;
                }
                String key = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
                if (!CONNECTION_HEADERS.contains(key)) {
                    headers.computeIfAbsent(key, k -> new ArrayList<>()).add(lines[i].substring(colon + 1).trim());
                }
            }
            headers.replaceAll((k, v) -> List.copyOf(v));
            return new Reply.Recorded(name, code, headers, Arrays.copyOfRange(bytes, bodyStart, bytes.length));
        }
    }

    /** Where the empty line after the headers starting at {@code from} begins (its CR or first LF), or -1. */
    private static int headEnd(byte[] b, int from) {
        for (int i = from; i + 1 < b.length; i++) {
            if (b[i] == '\n' && b[i + 1] == '\n') {
                return i;
            }
            if (b[i] == '\r' && i + 3 < b.length && b[i + 1] == '\n' && b[i + 2] == '\r' && b[i + 3] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** The body in the pieces a server would write: each server-sent event (or NDJSON line) with its terminator. */
    static List<byte[]> events(byte[] body) {
        List<byte[]> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < body.length; i++) {
            boolean lf = body[i] == '\n';
            boolean blank = lf && (i + 1 < body.length && body[i + 1] == '\n'
                    || i + 2 < body.length && body[i + 1] == '\r' && body[i + 2] == '\n');
            if (blank) {
                int end = body[i + 1] == '\n' ? i + 2 : i + 3;
                out.add(Arrays.copyOfRange(body, start, end));
                start = end;
                i = end - 1;
            }
        }
        if (start < body.length) {
            out.add(Arrays.copyOfRange(body, start, body.length));
        }
        return out;
    }
}
