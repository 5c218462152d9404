/** The subnet manager (OpenSM's role) for one port: sweep, LID assignment, port bring-up, SMInfo. Private to the bundle. */
package org.jrdma.ib.mad.sm;
