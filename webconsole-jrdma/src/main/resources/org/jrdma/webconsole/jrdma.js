// The jrdma page's live part: polls state.json every second and writes the counters and the resource counts
// into the cells that name them (data-counter="DEV/PORT/NAME", data-res="DEV/CLIENT/TYPE"). Devices, ports or
// clients that appear later show up on the next page load. No template literals: the console fills in
// dollar-brace variables in what a plugin writes.
(function () {
    var root = document.getElementById('jrdma');
    // location.origin, not a relative URL: a page opened as http://user:pass@host/ would otherwise give fetch()
    // a URL with credentials, which it refuses
    var url = location.origin + root.getAttribute('data-state');
    var live = document.getElementById('jrdma-live');
    var polls = 0;

    function put(attr, key, value) {
        var cell = root.querySelector('[' + attr + '="' + key.replace(/["\\]/g, '\\$&') + '"]');
        if (cell) {
            cell.textContent = String(value);
        }
    }

    function apply(state) {
        state.devices.forEach(function (d) {
            d.ports.forEach(function (p) {
                Object.keys(p.counters).forEach(function (name) {
                    put('data-counter', d.name + '/' + p.port + '/' + name, p.counters[name]);
                });
            });
            Object.keys(d.clients).forEach(function (client) {
                var counts = d.clients[client];
                Object.keys(counts).forEach(function (type) {
                    put('data-res', d.name + '/' + client + '/' + type, counts[type]);
                });
            });
        });
        polls++;
        live.setAttribute('data-polls', String(polls));
        live.textContent = 'Live: ' + polls + ' updates, last at ' + new Date().toLocaleTimeString();
    }

    function poll() {
        fetch(url, { credentials: 'same-origin', cache: 'no-store' })
            .then(function (r) {
                if (!r.ok) {
                    throw new Error('HTTP ' + r.status);
                }
                return r.json();
            })
            .then(apply)
            .catch(function (e) {
                live.textContent = 'Live: update failed (' + e.message + '), retrying';
            })
            .then(function () {
                setTimeout(poll, 1000);
            });
    }

    poll();
})();
