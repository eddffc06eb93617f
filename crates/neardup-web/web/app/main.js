// neardup page: UI on the main thread; all work happens in a worker
// (engine.js). One module per tab, plus what they share; assemble.mjs joins
// them into the page's one inline script.
import './about.js';
import './words.js';
import './engine.js';
import './documents.js';
import './tabs.js';
import './compare.js';
import './verify.js';
import './evidence.js';
import './collection.js';
import './collection-map.js';
import './pair.js';
