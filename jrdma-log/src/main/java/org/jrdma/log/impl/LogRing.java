package org.jrdma.log.impl;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The last lines logged, for {@code log:tail}: a fixed ring (the Log Service's own history keeps 100 entries
 * and no DEBUG ones), and the followers of {@code log:tail -f}, told of each new line.
 */
final class LogRing {

    private final String[] lines;
    private long count;
    private final List<Consumer<String>> followers = new CopyOnWriteArrayList<>();

    LogRing(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        lines = new String[capacity];
    }

    /** Followers are told under the lock, so that {@link #follow} neither misses nor repeats a line. */
    synchronized void add(String line) {
        lines[(int) (count++ % lines.length)] = line;
        for (Consumer<String> f : followers) {
            f.accept(line);
        }
    }

    /** The last {@code n} lines (fewer when fewer were logged or kept), oldest first. */
    synchronized List<String> last(int n) {
        int k = (int) Math.min(Math.max(n, 0), Math.min(count, lines.length));
        List<String> out = new ArrayList<>(k);
        for (long i = count - k; i < count; i++) {
            out.add(lines[(int) (i % lines.length)]);
        }
        return out;
    }

    /**
     * Calls {@code follower} with the last {@code n} lines, then with every line added, until the returned
     * handle is closed. The follower must be quick (it runs under the ring's lock): a queue's offer.
     */
    synchronized AutoCloseable follow(int n, Consumer<String> follower) {
        last(n).forEach(follower);
        followers.add(follower);
        return () -> followers.remove(follower);
    }

    /** Closes a {@link #follow} handle (its close never fails). */
    void unfollow(AutoCloseable handle) {
        try {
            handle.close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
