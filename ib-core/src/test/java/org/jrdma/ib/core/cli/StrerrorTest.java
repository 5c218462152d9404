package org.jrdma.ib.core.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.jrdma.ib.core.Errno;
import org.junit.jupiter.api.Test;

/** glibc 2.36's strerror texts, through Errno's message. */
class StrerrorTest {
    @Test
    void errnoCarriesGlibcsMessage() {
        assertEquals("Invalid argument", Errno.EINVAL.message());
        assertEquals("Operation not permitted", Errno.EPERM.message());
        assertEquals("Input/output error", Errno.EIO.message());
        assertEquals("Resource temporarily unavailable", Errno.EAGAIN.message());
        assertEquals("Cannot allocate memory", Errno.ENOMEM.message());
        assertEquals("Device or resource busy", Errno.EBUSY.message());
        assertEquals("Numerical result out of range", Errno.ERANGE.message());
        assertEquals("Operation not supported", Errno.EOPNOTSUPP.message());
        assertEquals("Cannot assign requested address", Errno.EADDRNOTAVAIL.message());
        assertEquals("Connection reset by peer", Errno.ECONNRESET.message());
        assertEquals("Connection timed out", Errno.ETIMEDOUT.message());
        assertEquals("Connection refused", Errno.ECONNREFUSED.message());
    }

    @Test
    void strerrorByErrnoAndByValue() {
        assertEquals("File exists", Strerror.strerror(Errno.EEXIST));
        assertEquals("Unknown error", Strerror.strerror((Errno) null));
        assertEquals("No such device", Strerror.strerror(19));
        assertEquals("Success", Strerror.strerror(0));
        assertEquals("Unknown error 4242", Strerror.strerror(4242));
    }

    @Test
    void errnoByValue() {
        for (Errno e : Errno.values()) {
            assertEquals(e, Errno.of(e.value()));
        }
        assertEquals(Errno.ECONNREFUSED, Errno.of(111));
        assertNull(Errno.of(0));
    }
}
