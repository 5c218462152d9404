/** The MAD layer implementation: per-port special QPs, agents, dispatch, timers. Private to the bundle. */
package org.jrdma.ib.mad.impl;
