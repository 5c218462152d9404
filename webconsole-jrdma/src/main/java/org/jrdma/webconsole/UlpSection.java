package org.jrdma.webconsole;

/**
 * A part of the page that a ULP's state fills (IPoIB interfaces, iSER sessions). Each is a DS component that
 * needs its ULP's service, so its section is on the page exactly while that ULP runs.
 */
interface UlpSection {
    /** Where the section goes among the others (ascending). */
    int order();

    void render(Html h);
}
