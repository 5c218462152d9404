/**
 * The iSER initiator (open-iscsi's session logic + Linux {@code ib_iser}): discovery, login, sessions with
 * a task table and CmdSN window, I/O with registered buffers, reinstatement. Implements the exported
 * {@code org.jrdma.ulp.iser} API. Private to the bundle.
 */
package org.jrdma.ulp.iser.initiator;
